"""A minimal HTTP/1.1 client for webhook POSTs: keep-alive connections to one vetted address, one write per request.

Why not httpx here: the scheduler's profile (issue 13) showed httpx's per-request machinery (connection-pool
bookkeeping that polls every idle socket, headers and body in two writes, models and cookies) as two thirds of a
delivery's cost. A webhook needs little of it: one POST, no redirects, no proxies, no cookies, the answer's status
and an excerpt of its body. What it does need is kept: TLS with the URL's host name for SNI and the certificate
check while connecting to the vetted address, and a response parser strict enough that a connection is reused only
after a complete, well-framed answer.

A connection is reused only when the answer was framed (Content-Length or chunked), fully read (up to
DRAIN_BYTES), and neither side asked to close. A request on a reused connection that fails before any byte of an
answer arrived is sent once more on a fresh connection: the receiver closed an idle connection as we reused it.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass, field

# Answers longer than this are not read to their end: the connection is closed instead of reused.
DRAIN_BYTES = 64 * 1024
HEAD_LIMIT = 64 * 1024


class ProtocolError(Exception):
    """The receiver's answer is not HTTP/1.1 as we can read it."""


class RemoteClosed(ProtocolError):
    """The connection ended before the answer did; `answered`: after some of the answer had come."""

    def __init__(self, message: str, *, answered: bool) -> None:
        super().__init__(message)
        self.answered = answered


@dataclass(frozen=True)
class Origin:
    """Where the connections go: the vetted address, and the name TLS checks (None for plain HTTP)."""

    address: str
    port: int
    tls_name: str | None


@dataclass
class Answer:
    status: int
    excerpt: bytes


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    def usable(self) -> bool:
        return not self.reader.at_eof() and not self.writer.is_closing()

    def close(self) -> None:
        self.writer.close()


@dataclass
class Pool:
    """Idle connections to one origin. The caller bounds how many are in use at once (the endpoint's gate)."""

    origin: Origin
    tls: ssl.SSLContext | None
    idle: list[_Connection] = field(default_factory=list)

    async def _open(self) -> _Connection:
        tls = self.tls if self.origin.tls_name is not None else None
        reader, writer = await asyncio.open_connection(
            self.origin.address, self.origin.port, ssl=tls, server_hostname=self.origin.tls_name if tls else None,
            limit=HEAD_LIMIT)
        return _Connection(reader, writer)

    async def post(self, head: bytes, body: bytes, excerpt_bytes: int) -> Answer:
        """Sends one request (`head` ends with the blank line) and reads its answer."""
        while self.idle:
            conn = self.idle.pop()
            if not conn.usable():
                conn.close()
                continue
            try:
                return await self._exchange(conn, head, body, excerpt_bytes)
            except RemoteClosed as e:
                if e.answered:
                    raise
                break
            except ConnectionError:
                break  # closed by the receiver while idle: once more on a fresh connection
        return await self._exchange(await self._open(), head, body, excerpt_bytes)

    async def _exchange(self, conn: _Connection, head: bytes, body: bytes, excerpt_bytes: int) -> Answer:
        reusable = False
        try:
            conn.writer.write(head + body)
            await conn.writer.drain()
            answer, reusable = await _read_answer(conn.reader, excerpt_bytes)
            return answer
        finally:
            if reusable:
                self.idle.append(conn)
            else:
                conn.close()

    def close(self) -> None:
        idle, self.idle = self.idle, []
        for conn in idle:
            conn.close()


async def _read_answer(reader: asyncio.StreamReader, excerpt_bytes: int) -> tuple[Answer, bool]:
    """The final answer (1xx interim answers skipped) and whether the connection may carry another request."""
    answered = False
    try:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError as e:
                raise RemoteClosed("the connection closed before an answer",
                                   answered=answered or bool(e.partial)) from None
            except asyncio.LimitOverrunError:
                raise ProtocolError("the answer's headers are too long") from None
            answered = True
            status, version, headers = _parse_head(head)
            if 100 <= status < 200 and status != 101:
                continue
            break
        keep = version == "HTTP/1.1" and "close" not in headers.get("connection", "").lower()
        if status in (204, 304) or 100 <= status < 200:
            return Answer(status, b""), keep and status != 101
        encoding = headers.get("transfer-encoding", "").lower()
        if encoding:
            if encoding != "chunked":
                return Answer(status, await _until_eof(reader, excerpt_bytes)), False
            excerpt, complete = await _chunked(reader, excerpt_bytes)
            return Answer(status, excerpt), keep and complete
        if "content-length" in headers:
            try:
                length = int(headers["content-length"])
            except ValueError:
                raise ProtocolError("the answer's Content-Length is not a number") from None
            if length < 0:
                raise ProtocolError("the answer's Content-Length is negative")
            if length > DRAIN_BYTES:
                return Answer(status, await reader.readexactly(min(length, excerpt_bytes))), False
            data = await reader.readexactly(length)
            return Answer(status, data[:excerpt_bytes]), keep
        return Answer(status, await _until_eof(reader, excerpt_bytes)), False
    except asyncio.IncompleteReadError:
        raise RemoteClosed("the connection closed before the answer's end", answered=True) from None
    except asyncio.LimitOverrunError:
        raise ProtocolError("an answer's chunk line is too long") from None


def _parse_head(head: bytes) -> tuple[int, str, dict[str, str]]:
    try:
        text = head.decode("latin-1")
        status_line, *lines = text[:-4].split("\r\n")
        version, code, *_ = status_line.split(" ", 2)
        status = int(code)
    except ValueError:
        raise ProtocolError("the answer's status line is not HTTP") from None
    if not version.startswith("HTTP/1.") or not 100 <= status <= 999:
        raise ProtocolError("the answer's status line is not HTTP/1.x")
    headers: dict[str, str] = {}
    for line in lines:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise ProtocolError("an answer's header line is malformed")
        key = name.lower()
        if key == "content-length" and key in headers and headers[key] != value.strip():
            raise ProtocolError("the answer has conflicting Content-Length headers")
        headers[key] = f"{headers[key]}, {value.strip()}" if key in headers and key != "content-length" \
            else value.strip()
    return status, version, headers


async def _chunked(reader: asyncio.StreamReader, excerpt_bytes: int) -> tuple[bytes, bool]:
    """The chunked body's first bytes, and whether it was read to its end (within DRAIN_BYTES)."""
    excerpt = b""
    total = 0
    while True:
        size_line = await reader.readuntil(b"\r\n")
        try:
            size = int(size_line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise ProtocolError("a chunk size is not hexadecimal") from None
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":
                pass  # trailers
            return excerpt, True
        total += size
        if total > DRAIN_BYTES:
            excerpt += (await reader.read(max(0, excerpt_bytes - len(excerpt))))
            return excerpt[:excerpt_bytes], False
        chunk = await reader.readexactly(size + 2)
        if chunk[-2:] != b"\r\n":
            raise ProtocolError("a chunk does not end with CRLF")
        excerpt = (excerpt + chunk[:-2])[:excerpt_bytes]


async def _until_eof(reader: asyncio.StreamReader, excerpt_bytes: int) -> bytes:
    excerpt = b""
    while len(excerpt) < excerpt_bytes:
        data = await reader.read(excerpt_bytes - len(excerpt))
        if not data:
            break
        excerpt += data
    return excerpt
