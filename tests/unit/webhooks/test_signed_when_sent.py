"""A webhook's signature carries the time its request is written (sender.Sender.send), not when it was claimed or
queued: attempts waiting behind a slow one of their endpoint must not reach the receiver looking old."""

from __future__ import annotations

import asyncio
import time

from server.webhooks.attempts import Attempt, Sender
from server.webhooks.signing import HEADER

ANSWER_DELAY = 0.4


def ms() -> int:
    return int(time.monotonic() * 1000)


class SlowReceiver:
    """A keep-alive HTTP/1.1 receiver that notes when each request arrived and the `t=` it carried, then answers
    200 after ANSWER_DELAY."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, int]] = []  # (arrived ms, signed t)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                arrived = ms()
                headers = dict(line.split(b": ", 1) for line in head.rstrip(b"\r\n").split(b"\r\n")[1:])
                await reader.readexactly(int(headers[b"Content-Length"]))
                signed = headers[HEADER.encode()].decode().split(",")[0].removeprefix("t=")
                self.seen.append((arrived, int(signed)))
                await asyncio.sleep(ANSWER_DELAY)
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


def attempt(n: int, port: int) -> Attempt:
    return Attempt(delivery_id=f"dlv_{n}", event_id=f"evt_{n}", endpoint_id="we_1", attempt=1,
                   url=f"http://127.0.0.1:{port}/hook", secrets=("whsec_test",), body=b'{"n": %d}' % n)


async def send_three_through_one_connection() -> list[tuple[int, int]]:
    receiver = SlowReceiver()
    server = await asyncio.start_server(receiver.serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    sender = Sender(allow_private=True, concurrency=1)
    try:
        outcomes = await asyncio.gather(*(sender.send(attempt(n, port), ms) for n in range(3)))
    finally:
        await sender.aclose()
        server.close()
        await server.wait_closed()
    assert all(o.ok for o in outcomes), outcomes
    return receiver.seen


def test_an_attempt_queued_behind_a_slow_one_is_signed_when_its_request_is_written() -> None:
    seen = asyncio.run(send_three_through_one_connection())
    assert len(seen) == 3
    # The last waited behind two answers of ANSWER_DELAY; signed when queued, it would carry a time that much older.
    assert all(arrived - signed < ANSWER_DELAY * 1000 / 2 for arrived, signed in seen), seen
    assert seen[-1][1] - seen[0][1] >= 2 * ANSWER_DELAY * 1000 * 0.9
