"""The gRPC server's handlers called in-process: what the facade uses when it runs in the gRPC server's process.

`InProcessChannel` stands in for a `grpc.aio.Channel` (`unary_unary`, what the generated stubs and the facade call):
a call runs the method handler through the server's own interceptors (the pipeline: request id, authentication,
rate limits, idempotency, required fields, error mapping) as a call over a socket would, without serializing the
messages, framing HTTP/2 or crossing gRPC's threads (DESIGN §13). What the caller sees is the same: the response
message, or a `grpc.aio.AioRpcError` with the code, details and trailing metadata the pipeline aborted with, and the
initial metadata it sent (`idempotent-replayed`).

The peer is loopback, as over the real channel of the same host (the rate limiter trusts its `x-forwarded-for`).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

import grpc
from google.protobuf.message import Message

from server.context import access_log

log = logging.getLogger("paygate.rpc")
PEER = "ipv4:127.0.0.1:0"
MetadataLike = Sequence[tuple[str, str | bytes]] | None


class _Aborted(Exception):
    def __init__(self, code: grpc.StatusCode, details: str, trailing: tuple[tuple[str, str | bytes], ...]) -> None:
        super().__init__(details)
        self.code, self.details, self.trailing = code, details, trailing


class _Details(grpc.HandlerCallDetails):
    def __init__(self, method: str, metadata: tuple[tuple[str, str | bytes], ...]) -> None:
        self.method = method
        self.invocation_metadata = metadata


class _Context:
    """The part of `grpc.aio.ServicerContext` paygate's pipeline and servicers use."""

    def __init__(self, metadata: tuple[tuple[str, str | bytes], ...]) -> None:
        self._metadata = metadata
        # The access-log line of the facade's request making this call, taken in the caller's task: the pipeline
        # adds its fields to it instead of writing a line of its own.
        self.access_log = access_log.get()
        self.initial: tuple[tuple[str, str | bytes], ...] = ()
        self.trailing: tuple[tuple[str, str | bytes], ...] = ()
        self.code: grpc.StatusCode | None = None
        self.details: str | None = None

    def invocation_metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        return self._metadata

    def peer(self) -> str:
        return PEER

    async def send_initial_metadata(self, metadata: Iterable[tuple[str, str | bytes]]) -> None:
        self.initial = tuple(metadata)

    async def abort(self, code: grpc.StatusCode, details: str = "",
                    trailing_metadata: Iterable[tuple[str, str | bytes]] = ()) -> None:
        raise _Aborted(code, details, tuple(trailing_metadata))

    def set_trailing_metadata(self, metadata: Iterable[tuple[str, str | bytes]]) -> None:
        self.trailing = tuple(metadata)

    def set_code(self, code: grpc.StatusCode) -> None:
        self.code = code

    def set_details(self, details: str) -> None:
        self.details = details

    def time_remaining(self) -> float | None:
        return None

    def cancelled(self) -> bool:
        return False

    def done(self) -> bool:
        return False


def _metadata(pairs: Iterable[tuple[str, str | bytes]]) -> grpc.aio.Metadata:
    return grpc.aio.Metadata(*pairs)


class InProcessCall:
    """One call: awaitable for the response; `initial_metadata()`, `trailing_metadata()`, `code()` as on a real
    call. Runs as soon as it is made (like a real call, which is sent when made)."""

    def __init__(self, run: Awaitable[Message], context: _Context) -> None:
        self._context = context
        self._task: asyncio.Future[Message] = asyncio.ensure_future(run)

    def __await__(self) -> Any:
        return self._task.__await__()

    async def _settled(self) -> None:
        if self._task.done():
            return
        with contextlib.suppress(Exception):  # the awaiting caller sees it; metadata is there either way
            await asyncio.shield(self._task)

    async def initial_metadata(self) -> grpc.aio.Metadata:
        await self._settled()
        return _metadata(self._context.initial)

    async def trailing_metadata(self) -> grpc.aio.Metadata:
        await self._settled()
        return _metadata(self._context.trailing)

    async def code(self) -> grpc.StatusCode:
        await self._settled()
        error = self._task.exception() if not self._task.cancelled() else None
        return error.code() if isinstance(error, grpc.aio.AioRpcError) else grpc.StatusCode.OK

    def cancel(self) -> bool:
        return self._task.cancel()


class _UnaryUnary:
    def __init__(self, channel: InProcessChannel, method: str) -> None:
        self._channel = channel
        self._method = method

    def __call__(self, request: Message, *, timeout: float | None = None, metadata: MetadataLike = None,
                 **_: Any) -> InProcessCall:
        pairs = tuple(metadata or ())
        context = _Context(pairs)
        return InProcessCall(self._channel._invoke(self._method, request, context, timeout), context)


Handler = Callable[[Message, Any], Any]


class InProcessChannel:
    """Collects a server's method handlers (pass it to the generated `add_…Servicer_to_server` next to the real
    server, see `Tee`) and calls them through `interceptors`, in order, as the server would."""

    def __init__(self, interceptors: Sequence[grpc.aio.ServerInterceptor] = ()) -> None:
        self._interceptors = tuple(interceptors)
        self._generic: list[grpc.GenericRpcHandler] = []
        self._handlers: dict[str, grpc.RpcMethodHandler | None] = {}  # method → intercepted handler (memo)
        self._closed = False

    # -- what the generated add_…_to_server functions call
    def add_generic_rpc_handlers(self, handlers: Iterable[grpc.GenericRpcHandler]) -> None:
        self._generic.extend(handlers)

    def add_registered_method_handlers(self, service: str, handlers: dict[str, grpc.RpcMethodHandler]) -> None:
        pass  # the generic handlers registered alongside answer the same methods

    # -- what a client calls
    def unary_unary(self, method: str, request_serializer: Any = None, response_deserializer: Any = None,
                    **_: Any) -> _UnaryUnary:
        return _UnaryUnary(self, method)

    def unary_stream(self, method: str, *args: Any, **kwargs: Any) -> Callable[..., Any]:
        return _streaming(method)  # stubs make every method's callable; paygate's facade calls unary ones only

    stream_unary = stream_stream = unary_stream

    async def close(self) -> None:
        self._closed = True

    async def channel_ready(self) -> None:
        return None

    async def _handler(self, method: str) -> grpc.RpcMethodHandler | None:
        if method in self._handlers:
            return self._handlers[method]
        details = _Details(method, ())

        async def found(call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
            for generic in self._generic:
                handler = generic.service(call_details)
                if handler is not None:
                    return handler
            return None

        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler | None]] = found
        for interceptor in reversed(self._interceptors):
            continuation = _chained(interceptor, continuation)
        handler = await continuation(details)
        # Interceptors decide by the method alone (never by metadata), so the intercepted handler is reusable.
        self._handlers[method] = handler
        return handler

    async def _invoke(self, method: str, request: Message, context: _Context, timeout: float | None) -> Message:
        if self._closed:
            raise _error(grpc.StatusCode.UNAVAILABLE, "the in-process channel is closed", context)
        handler = await self._handler(method)
        if handler is None:
            raise _error(grpc.StatusCode.UNIMPLEMENTED, "Method not found!", context)
        if handler.unary_unary is None:
            raise _error(grpc.StatusCode.UNIMPLEMENTED, f"{method} is not unary", context)
        try:
            result = handler.unary_unary(request, context)
            if inspect.isawaitable(result):
                async with asyncio.timeout(timeout):  # no task of its own, unlike wait_for
                    result = await result
        except _Aborted as e:
            raise _error(e.code, e.details, context, e.trailing) from None
        except TimeoutError:
            raise _error(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded", context) from None
        except Exception as e:  # what grpc answers for an exception a handler lets out
            log.exception("unhandled error in %s", method)
            raise _error(grpc.StatusCode.UNKNOWN, f"Unexpected {type(e)}: {e}", context) from None
        if context.code not in (None, grpc.StatusCode.OK):
            raise _error(context.code, context.details or "", context, context.trailing)
        return result


def _streaming(method: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{method}: streaming calls do not run in-process")
    return refuse


def _chained(interceptor: grpc.aio.ServerInterceptor,
             inner: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler | None]],
             ) -> Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler | None]]:
    async def call(details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        return await interceptor.intercept_service(inner, details)
    return call


def _error(code: grpc.StatusCode, details: str, context: _Context,
           trailing: tuple[tuple[str, str | bytes], ...] = ()) -> grpc.aio.AioRpcError:
    context.trailing = trailing or context.trailing
    return grpc.aio.AioRpcError(code, _metadata(context.initial), _metadata(context.trailing), details, None)


class Tee:
    """Registers handlers on a real server and on an in-process channel at once (for `add_…Servicer_to_server`)."""

    def __init__(self, server: grpc.aio.Server, channel: InProcessChannel) -> None:
        self._server = server
        self._channel = channel

    def add_generic_rpc_handlers(self, handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        self._server.add_generic_rpc_handlers(handlers)
        self._channel.add_generic_rpc_handlers(handlers)

    def add_registered_method_handlers(self, service: str, handlers: dict[str, grpc.RpcMethodHandler]) -> None:
        self._server.add_registered_method_handlers(service, handlers)
        self._channel.add_registered_method_handlers(service, handlers)
