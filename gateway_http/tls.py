"""How the facade's channel reaches a gRPC server with TLS on."""

from __future__ import annotations

from dataclasses import dataclass

import grpc


@dataclass(frozen=True)
class ChannelTls:
    credentials: grpc.ChannelCredentials
    server_name: str = ""  # the name checked in the server's certificate; empty: the host dialled

    def options(self) -> list[tuple[str, str]]:
        return [("grpc.ssl_target_name_override", self.server_name)] if self.server_name else []
