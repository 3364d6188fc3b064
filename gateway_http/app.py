"""The Starlette application: generated routes, the envelope, limits, health and the OpenAPI document."""

from __future__ import annotations

import ipaddress
import logging
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
import paygate.v1 as api
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from paygate.v1 import options_pb2, provider_webhooks_pb2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway_http import envelope, openapi
from gateway_http.checkout_page import CheckoutPage, PageConfig
from gateway_http.checkout_page import routes as page_routes
from gateway_http.request_id import RequestIdMiddleware
from gateway_http.router import IndexedRouter
from gateway_http.routes import Binding, bindings, by_template
from gateway_http.tls import ChannelTls
from server import metrics
from wire import codec, json_limits

log = logging.getLogger("paygate.http")
RPC_TIMEOUT_SECONDS = 30.0
JSON_MAX_DEPTH = 256  # deeper than any body of the API; the codec refuses metadata past its own lower limit
_JSON_TYPES = ("application/json", "application/merge-patch+json")
# Verbs whose requests declare a JSON content type even without a body: an HTML form can send a POST cross-site
# (with a form or text/plain type, body or not) and the browser may attach cached Basic credentials; it cannot
# send JSON without a CORS preflight. GET and DELETE need no content type (DESIGN.md §12).
_JSON_REQUIRED_VERBS = ("POST", "PUT", "PATCH")
CLIENT_IP_METADATA = "x-forwarded-for"


_PRINTABLE_ASCII = re.compile(r"^[\x20-\x7e]+$")
# A provider's webhook carries no paygate credential; whatever a sender puts in these stays at the edge.
_NOT_FORWARDED = frozenset({"authorization", "cookie", "proxy-authorization"})


class _TooLarge(Exception):
    pass


def _replayed(initial: Any) -> bool:
    return any(k == "idempotent-replayed" for k, _ in initial or ())


class Gateway:
    """Holds the channel to the gRPC server and turns HTTP requests into calls on it."""

    def __init__(self, grpc_target: str, max_body_bytes: int, tls: ChannelTls | None = None,
                 trusted_proxies: tuple[str, ...] = (), in_process: Any = None) -> None:
        self.grpc_target = grpc_target
        self.max_body_bytes = max_body_bytes
        self.tls = tls
        self.trusted_proxies = tuple(ipaddress.ip_network(p, strict=False) for p in trusted_proxies)
        # A channel-like object calling the servicers of this process (server/rpc/inprocess.py), or None: a real
        # channel to grpc_target. Calls, answers and errors look the same through either.
        self._in_process = in_process
        self.channel: Any = None
        self._calls: dict[str, Any] = {}

    async def open(self) -> None:
        if self._in_process is not None:
            self.channel = self._in_process
            return
        options: list[tuple[str, Any]] = [("grpc.enable_retries", 1)]
        if self.tls is None:
            self.channel = grpc.aio.insecure_channel(self.grpc_target, options=options)
        else:
            self.channel = grpc.aio.secure_channel(self.grpc_target, self.tls.credentials,
                                                   options=options + self.tls.options())

    async def close(self) -> None:
        if self.channel is not None:
            await self.channel.close()

    def _call(self, b: Binding) -> Any:
        call = self._calls.get(b.rpc)
        if call is None:
            assert self.channel is not None
            call = self.channel.unary_unary(b.rpc, request_serializer=b.request_class.SerializeToString,
                                            response_deserializer=b.response_class.FromString)
            self._calls[b.rpc] = call
        return call

    async def _read_body(self, request: Request) -> bytes:
        """The body, refused (_TooLarge) past max_body_bytes, whether declared or streamed: never read whole first."""
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.max_body_bytes:
            raise _TooLarge
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > self.max_body_bytes:
                raise _TooLarge
            chunks.append(chunk)
        return b"".join(chunks)

    async def _read_json(self, request: Request) -> dict[str, Any]:
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if request.method in _JSON_REQUIRED_VERBS and ctype not in _JSON_TYPES:
            raise codec.CodecError("Content-Type", f"send application/json with every {request.method}")
        raw = await self._read_body(request)
        if not raw.strip():
            return {}
        if ctype not in _JSON_TYPES:
            raise codec.CodecError("Content-Type", "send application/json")
        # Size and nesting are measured before parsing, without recursion (wire/json_limits.py).
        body = json_limits.loads(raw, "body", max_bytes=self.max_body_bytes, max_depth=JSON_MAX_DEPTH)
        if not isinstance(body, dict):
            raise codec.CodecError("body", "must be a JSON object")
        return body

    def _message(self, b: Binding, request: Request, body: dict[str, Any]) -> Message:
        message = b.request_class()
        if b.body == "*":
            codec.decode(body, message)
            if "update_mask" in message.DESCRIPTOR.fields_by_name and "update_mask" not in body:
                known = message.DESCRIPTOR.fields_by_name
                message.update_mask.paths.extend(  # type: ignore[attr-defined]
                    k for k, v in body.items() if v is not None and k in known and k != "id")
        else:
            if b.body:
                codec.decode({b.body: body}, message)
            codec.decode_query(request.query_params.multi_items(), message)
        for name in b.path_params:
            codec.decode({name: request.path_params[name.replace(".", "__")]}, message)
        return message

    async def handle(self, b: Binding, request: Request) -> Response:
        started = time.perf_counter()
        response, status = await self._answer(b, request)
        metrics.request_done(b.rpc[1:], status, "http", time.perf_counter() - started)
        return response

    async def _answer(self, b: Binding, request: Request) -> tuple[Response, str]:
        """The response, and its error_code ("ok" on success) for the request metrics."""
        rid: str = request.state.request_id
        try:
            try:
                body = await self._read_json(request) if b.verb != "GET" else {}
                message = self._message(b, request, body)
                metadata = self._metadata(b, request, rid)
                metadata.append((CLIENT_IP_METADATA, self.client_ip(request)))
            except _TooLarge:
                return envelope.error(413, "request_too_large",
                                      f"body: larger than {self.max_body_bytes} bytes"), "request_too_large"
            except ClientDisconnect:
                return _gone(), "client_closed_request"
            except codec.CodecError as e:
                if e.field == "Content-Type":
                    return envelope.error(415, "unsupported_media_type", str(e)), "unsupported_media_type"
                return envelope.error(400, "parameter_invalid", str(e)), "parameter_invalid"
            call = self._call(b)(message, metadata=metadata, timeout=RPC_TIMEOUT_SECONDS)
            headers: dict[str, str] = {}
            try:
                response = await call
            except grpc.aio.AioRpcError as e:
                status, reason, msg = envelope.from_rpc_error(e)
                headers.update(envelope.retry_after(e))
                if _replayed(await call.initial_metadata()):
                    headers["Idempotent-Replayed"] = "true"
                return envelope.error(status, reason, msg, headers), reason
            if _replayed(await call.initial_metadata()):
                headers["Idempotent-Replayed"] = "true"
            data = codec.encode_field(response, b.response_body) if b.response_body else codec.encode(response)
            payload = envelope.success(data, with_data=b.envelope != options_pb2.ENVELOPE_WITHOUT_DATA,
                                       msg=b.success_message)
            return envelope.json_response(payload, 200, headers), "ok"
        except Exception:
            log.exception("facade failure", extra={"path": request.url.path})
            return envelope.error(500, "server_error", f"internal error; quote request id {rid}"), "server_error"

    def client_ip(self, request: Request) -> str:
        """The socket peer; behind proxies listed in `trusted_proxies`, the nearest X-Forwarded-For hop that is not
        one of them. Hops further left are the client's own words and are not believed."""
        peer = request.client.host if request.client else ""
        if not self.trusted_proxies:
            return peer  # no proxy is believed: the header is never read (and no address parsed per request)
        hops = [h.strip() for v in request.headers.getlist("x-forwarded-for") for h in v.split(",") if h.strip()]
        while self._trusted(peer) and hops:
            hop = hops.pop()
            try:
                peer = str(ipaddress.ip_address(hop))
            except ValueError:
                break  # a trusted proxy passed on garbage: the proxy is the nearest client we know
        return peer

    def _trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in net for net in self.trusted_proxies)

    @staticmethod
    def _metadata(b: Binding, request: Request, rid: str) -> list[tuple[str, str]]:
        """What travels to the server: the request id, the credential, the idempotency key (ASCII only)."""
        metadata = [("x-request-id", rid)]
        if auth := request.headers.get("authorization"):
            if not _PRINTABLE_ASCII.match(auth):
                auth = "invalid"  # gRPC metadata is ASCII; the server refuses it as a wrong credential
            metadata.append(("authorization", auth))
        if b.verb == "POST" and (key := request.headers.get("idempotency-key")) is not None:
            if not _PRINTABLE_ASCII.match(key) or len(key) > 255:
                raise codec.CodecError("Idempotency-Key", "must be 1 to 255 printable ASCII characters")
            metadata.append(("idempotency-key", key))
        return metadata

    async def provider_webhook(self, request: Request) -> Response:
        """`POST /webhooks/{provider}/{merchant_id}`: a card provider signs the exact bytes of its body, so they
        travel to the server untouched (no JSON transcoding) with the headers; the server picks the provider's
        signature header, verifies and applies (server/cards/outcome.py)."""
        rid: str = request.state.request_id
        try:
            body = await self._read_body(request)
        except _TooLarge:
            return envelope.error(413, "request_too_large", f"body: larger than {self.max_body_bytes} bytes")
        except ClientDisconnect:
            return _gone()
        message = provider_webhooks_pb2.ReceiveProviderWebhookRequest(
            provider=request.path_params["provider"], merchant_id=request.path_params["merchant_id"], payload=body,
            # Credentials never travel on; a header that is not printable ASCII could not be a signature anyway.
            headers={k: v if not v or _PRINTABLE_ASCII.match(v) else "invalid" for k, v in request.headers.items()
                     if k not in _NOT_FORWARDED})
        assert self.channel is not None
        call = self.channel.unary_unary(
            "/paygate.v1.ProviderWebhookService/ReceiveProviderWebhook",
            request_serializer=provider_webhooks_pb2.ReceiveProviderWebhookRequest.SerializeToString,
            response_deserializer=provider_webhooks_pb2.ReceiveProviderWebhookResponse.FromString)
        try:
            response = await call(message, metadata=[("x-request-id", rid),
                                                     (CLIENT_IP_METADATA, self.client_ip(request))],
                                  timeout=RPC_TIMEOUT_SECONDS)
        except grpc.aio.AioRpcError as e:
            status, reason, msg = envelope.from_rpc_error(e)
            return envelope.error(status, reason, msg, envelope.retry_after(e))
        return envelope.json_response(envelope.success({"received": response.received}))

    async def health(self, request: Request) -> Response:
        assert self.channel is not None
        stub = health_pb2_grpc.HealthStub(self.channel)
        try:
            reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=3)
            ok = reply.status == health_pb2.HealthCheckResponse.SERVING
        except grpc.aio.AioRpcError:
            ok = False
        if not ok:
            return envelope.error(503, "service_unavailable", "the database or the gRPC server is not answering")
        return envelope.json_response(envelope.success({"status": "SERVING"}))


def _gone() -> Response:
    """A client that went away before its whole body arrived (it closed, or the body deadline closed it): nothing is
    called and nobody reads this answer; it is here for the access line (nginx's 499), not as a failure to log."""
    return envelope.error(499, "client_closed_request", "body: the client went away")


def route_table(gateway: Gateway) -> list[Route]:
    routes = []
    for template, verbs in by_template(bindings(api.services())):
        routes.append(Route(next(iter(verbs.values())).starlette_path, _endpoint(gateway, verbs),
                            methods=list(verbs), name=template))
    return routes


def _endpoint(gateway: Gateway, verbs: dict[str, Binding]) -> Any:
    async def endpoint(request: Request) -> Response:
        verb = "GET" if request.method == "HEAD" else request.method
        return await gateway.handle(verbs[verb], request)

    return endpoint


class MetricsEndpoint:
    """`GET /metrics` (DESIGN §22), answered ahead of the router: like /healthz it needs no credential, and it is no
    route of the API's table (gateway_http/routes.py, tests/e2e/http/test_route_table.py)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != "/metrics":
            return await self.app(scope, receive, send)
        if scope["method"] in ("GET", "HEAD"):
            # In a thread: in multi-process mode a scrape reads every worker's files.
            body, content_type = await run_in_threadpool(metrics.exposition)
            response = Response(body, media_type=content_type)
        else:
            response = envelope.error(405, "method_not_allowed", f"{scope['method']} is not allowed on /metrics",
                                      {"Allow": "GET, HEAD"})
        await response(scope, receive, send)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return envelope.error(404, "not_found", f"no route for {request.method} {request.url.path}")
    if exc.status_code == 405:
        headers = dict(exc.headers or {})
        if "Allow" in headers:  # Starlette lists a set: one order, whichever process answers (hash seeds differ)
            headers["Allow"] = ", ".join(sorted(v.strip() for v in headers["Allow"].split(",")))
        return envelope.error(405, "method_not_allowed", f"{request.method} is not allowed on {request.url.path}",
                              headers)
    return envelope.error(exc.status_code, "parameter_invalid", str(exc.detail))


async def _server_error(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error", exc_info=exc)
    return envelope.error(500, "server_error", "internal error")


def create_app(grpc_target: str, *, max_body_bytes: int = 1 << 20, title: str = "paygate",
               channel: ChannelTls | None = None, trusted_proxies: tuple[str, ...] = (),
               checkout_page: PageConfig | None = None, in_process: Any = None,
               metrics_route: bool = True) -> Starlette:
    """`in_process`: the gRPC server's handlers of this process (server/rpc/inprocess.py) instead of a channel to
    `grpc_target`. `metrics_route`: serve `GET /metrics` (off when `metrics_addr` serves it on its own port)."""
    gateway = Gateway(grpc_target, max_body_bytes, channel, trusted_proxies, in_process)
    document = envelope.dumps(openapi.document(bindings(api.services()), title=title))

    async def openapi_json(request: Request) -> Response:
        return Response(document, media_type="application/json")

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await gateway.open()
        try:
            yield
        finally:
            await gateway.close()

    routes: list[BaseRoute] = [Route("/healthz", gateway.health, methods=["GET"]),
                               Route("/openapi.json", openapi_json, methods=["GET"]),
                               Route("/webhooks/{provider}/{merchant_id}", gateway.provider_webhook,
                                     methods=["POST"]),
                               *route_table(gateway)]
    # The hosted checkout page, under the path of checkout_url (DESIGN §9).
    routes += page_routes(CheckoutPage(checkout_page or PageConfig(), lambda: gateway.channel))
    middleware = [Middleware(RequestIdMiddleware)]
    if metrics_route:
        middleware.append(Middleware(MetricsEndpoint))
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware,
                    exception_handlers={HTTPException: _http_error, Exception: _server_error})
    app.router = IndexedRouter(routes, lifespan=lifespan)  # before the first request builds the middleware stack
    app.state.gateway = gateway
    return app
