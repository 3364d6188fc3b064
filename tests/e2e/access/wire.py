"""The two ways in, behind one call: HTTP through the facade, or gRPC straight to the server with the same request
(decoded by the facade's codec). Both answer an `Answer` with the HTTP status the facade would send, so one set of
expectations covers both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc
import httpx
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from gateway_http import envelope
from gateway_http.routes import Binding
from tests.harness import TLS, Service
from wire import codec


@dataclass
class Answer:
    status: int
    error_code: str
    msg: str
    data: Any
    where: str  # what was called, for assertion messages


class Wire:
    def __init__(self, kind: str, service: Service) -> None:
        self.kind = kind
        self.service = service
        self._clients: dict[str | None, httpx.Client] = {}
        self._channel = grpc.insecure_channel(service.grpc_addr) if kind == "grpc" else None

    def close(self) -> None:
        for client in self._clients.values():
            client.close()
        if self._channel is not None:
            self._channel.close()

    def call(self, key: str | None, b: Binding, path: dict[str, str], payload: dict[str, Any]) -> Answer:
        return self._http(key, b, path, payload) if self.kind == "http" else self._grpc(key, b, path, payload)

    def _http(self, key: str | None, b: Binding, path: dict[str, str], payload: dict[str, Any]) -> Answer:
        if key not in self._clients:
            self._clients[key] = httpx.Client(base_url=self.service.http_url, timeout=30,
                                              auth=httpx.BasicAuth(key, "") if key else None, verify=TLS)
        url = b.template
        for name, value in path.items():
            url = url.replace("{" + name + "}", value)
        client = self._clients[key]
        response = client.request(b.verb, url, json=payload) if b.body else \
            client.request(b.verb, url, params=payload)
        body = response.json()
        return Answer(response.status_code, body.get("error_code", ""), body.get("msg", ""), body.get("data"),
                      f"{b.verb} {url} {payload}")

    def _grpc(self, key: str | None, b: Binding, path: dict[str, str], payload: dict[str, Any]) -> Answer:
        assert self._channel is not None
        request = codec.decode({**payload, **path}, b.request_class())
        call = self._channel.unary_unary(b.rpc, request_serializer=b.request_class.SerializeToString,
                                         response_deserializer=b.response_class.FromString)
        metadata = [("authorization", f"Bearer {key}")] if key else []
        where = f"{b.rpc} {path} {payload}"
        try:
            response = call(request, metadata=metadata, timeout=30)
        except grpc.RpcError as err:
            status = envelope.HTTP_STATUS.get(err.code(), 500)  # type: ignore[attr-defined]
            reason = ""
            details = rpc_status.from_call(err)  # type: ignore[arg-type]
            for detail in details.details if details is not None else ():
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    reason = info.reason
            return Answer(status, reason, err.details() or "", {}, where)  # type: ignore[attr-defined]
        data = codec.encode_field(response, b.response_body) if b.response_body else codec.encode(response)
        return Answer(200, "success", "success", data, where)
