"""Request ids and the access log, for every response (also 404s, 405s and failures outside a route): one line per
request, with the method, code and merchant of the RPC that answered it when that ran in this process.

A client's `X-Request-Id` is kept only when it is short and plain; anything else is replaced, because the id
travels on as gRPC metadata and into logs. The gRPC server applies the same rule (`request_id_of`) to the
`x-request-id` metadata of callers that bypass the facade.
"""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.context import access_log, request_id_of

log = logging.getLogger("paygate.http")
class RequestIdMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1")
        rid = request_id_of(sent)
        scope.setdefault("state", {})["request_id"] = rid
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", rid.encode())]
            await send(message)

        line: dict[str, object] = {}
        token = access_log.set(line)  # an RPC run in this process adds its method, code and merchant
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            access_log.reset(token)
            log.info("http", extra={"request_id": rid, "verb": scope["method"], "path": scope["path"],
                                    "status": status, "ms": round((time.perf_counter() - started) * 1000, 2),
                                    **line})
