"""The webhook client's HTTP/1.1 framing, against real loopback servers that answer with raw bytes: a connection
is reused only after a complete, well-framed answer, and a receiver that closed an idle connection costs no attempt.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from server.webhooks import http11

HEAD = b"POST /h HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n"

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def serve(answers: list[bytes], connections: list[int]) -> asyncio.Server:
    """Answers each request with the next of `answers`; counts connections. An answer ending with b"|close" is
    sent, then the connection is closed."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                await reader.readexactly(length)
                answer = answers.pop(0)
                close = answer.endswith(b"|close")
                writer.write(answer.removesuffix(b"|close"))
                await writer.drain()
                if close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()

    return await asyncio.start_server(handle, "127.0.0.1", 0)


def pool_for(server: asyncio.Server) -> http11.Pool:
    port = server.sockets[0].getsockname()[1]
    return http11.Pool(http11.Origin("127.0.0.1", port, None), None)


def run(answers: list[bytes], requests: int) -> tuple[list[http11.Answer], int]:
    async def go() -> tuple[list[http11.Answer], int]:
        connections: list[int] = []
        server = await serve(answers, connections)
        pool = pool_for(server)
        try:
            got = [await pool.post(HEAD, b"{}", 1000) for _ in range(requests)]
        finally:
            pool.close()
            server.close()
        return got, len(connections)

    return asyncio.run(go())


def test_a_content_length_answer_keeps_the_connection():
    ok = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    got, connections = run([ok, ok, ok], 3)
    assert [(a.status, a.excerpt) for a in got] == [(200, b"ok")] * 3 and connections == 1


def test_a_chunked_answer_is_read_to_its_end_and_keeps_the_connection():
    chunked = b"HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\n"
    got, connections = run([chunked, chunked], 2)
    assert [(a.status, a.excerpt) for a in got] == [(500, b"abcde")] * 2 and connections == 1


def test_connection_close_and_http_1_0_answers_are_not_reused():
    close = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
    old = b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"
    _, connections = run([close, old, close], 3)
    assert connections == 3


def test_an_answer_without_length_is_read_until_the_connection_ends():
    got, connections = run([b"HTTP/1.1 202 Accepted\r\n\r\nqueued|close", b"HTTP/1.1 202 Accepted\r\n\r\nq|close"], 2)
    assert [(a.status, a.excerpt) for a in got] == [(202, b"queued"), (202, b"q")] and connections == 2


def test_an_idle_connection_the_receiver_closed_is_replaced_without_failing_the_attempt():
    ok = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    # The first answer says keep-alive, but the server closes right after it.
    got, connections = run([ok + b"|close", ok], 2)
    assert [a.status for a in got] == [200, 200] and connections == 2


def test_interim_answers_are_skipped():
    got, _ = run([b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"], 1)
    assert got[0].status == 204 and got[0].excerpt == b""


@pytest.mark.parametrize("answer", [b"SMTP ready\r\n\r\n", b"HTTP/1.1 abc OK\r\n\r\n",
                                    b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
                                    b"HTTP/1.1 200 OK\r\nbroken header\r\n\r\n"])
def test_an_answer_that_is_not_http_is_a_protocol_error(answer):
    with pytest.raises(http11.ProtocolError):
        run([answer], 1)


def test_an_answer_cut_short_is_an_error_not_a_success():
    with pytest.raises(http11.RemoteClosed):
        run([b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort|close"], 1)


def test_the_excerpt_is_bounded_and_a_long_answer_is_not_drained():
    long = b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"x" * 100000
    got, connections = run([long, long], 2)
    assert [len(a.excerpt) for a in got] == [1000, 1000] and connections == 2
