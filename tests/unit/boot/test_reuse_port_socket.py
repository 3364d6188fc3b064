"""`serve --workers N` listens on SO_REUSEPORT sockets it makes itself (server/boot/serve.py): their connections must
get TCP_NODELAY like uvicorn's own, or every response waits out Nagle against the client's delayed ACK."""

from __future__ import annotations

import asyncio
import socket

from server.boot.serve import listening_socket
from tests.harness import free_port


def test_connections_accepted_on_a_reuse_port_socket_send_without_delay() -> None:
    async def run() -> int:
        accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            sock = writer.get_extra_info("socket")
            accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        port = free_port()
        server = await asyncio.start_server(connected, sock=listening_socket("127.0.0.1", port, reuse_port=True))
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            nodelay = await asyncio.wait_for(accepted, 10)
            writer.close()
            return nodelay
        finally:
            server.close()
            await server.wait_closed()

    assert asyncio.run(run()) != 0
