"""The server interceptor: every unary RPC of paygate runs through `Pipeline._run`.

Order: request id → authentication (by the RPC's policy) → idempotency → required fields → servicer.
Domain errors become `google.rpc.Status` with `ErrorInfo(reason=error_code)` in the trailers; any other
exception is logged with the request id and answered as `server_error` without internals.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from paygate.v1 import options_pb2
from sqlalchemy.exc import IntegrityError

from server.db import Database
from server.errors import Conflict, DomainError, Unimplemented
from server.idempotency import store
from server.ids import random_base62
from server.ratelimit import Limiter, RateLimited
from server.rpc.auth import Authenticator, require_checkout_credentials
from server.rpc.context import optional_caller, request_id, set_caller
from server.rpc.methods import MethodInfo, check_required

log = logging.getLogger("paygate.rpc")
DETAILS_KEY = "grpc-status-details-bin"
ERROR_DOMAIN = "paygate"


def to_status(error: DomainError) -> status_pb2.Status:
    info = error_details_pb2.ErrorInfo(reason=error.reason, domain=ERROR_DOMAIN)
    if error.field:
        info.metadata["field"] = error.field
    detail = any_pb2.Any()
    detail.Pack(info)
    return status_pb2.Status(code=error.code.value[0], message=error.message, details=[detail])


def internal_status() -> status_pb2.Status:
    error = DomainError(f"internal error; quote request id {request_id.get()} when reporting it",
                        reason="server_error")
    error.code = grpc.StatusCode.INTERNAL
    return to_status(error)


class _Replayed(Exception):
    def __init__(self, status: status_pb2.Status) -> None:
        self.status = status


Behavior = Callable[[Message, grpc.aio.ServicerContext], Any]


class Pipeline(grpc.aio.ServerInterceptor):
    def __init__(self, methods: dict[str, MethodInfo], auth: Authenticator, db: Database,
                 limits: Limiter | None = None) -> None:
        self._methods = methods
        self._auth = auth
        self._db = db
        self._limits = limits

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        info = self._methods.get(handler_call_details.method)
        if handler is None or info is None or handler.unary_unary is None:
            return handler
        inner: Behavior = handler.unary_unary

        async def behavior(request: Message, context: grpc.aio.ServicerContext) -> Message:
            return await self._run(info, inner, request, context)

        return grpc.unary_unary_rpc_method_handler(
            behavior,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )

    async def _run(self, info: MethodInfo, inner: Behavior, request: Message,
                   context: grpc.aio.ServicerContext) -> Message:
        metadata = {k: v for k, v in (context.invocation_metadata() or ()) if isinstance(v, str)}
        request_id.set(metadata.get("x-request-id") or random_base62(16))
        started = time.perf_counter()
        status: status_pb2.Status | None = None
        trailers: tuple[tuple[str, str], ...] = ()
        try:
            caller = await self._auth.authenticate(info.auth, metadata.get("authorization"))
            if caller is None and info.auth == options_pb2.AUTH_POLICY_SECRET_OR_CLIENT_SECRET:
                require_checkout_credentials(request)
            set_caller(caller)
            if self._limits is not None:
                await self._limits.check(info, caller, request, metadata, context.peer())
            key = metadata.get("idempotency-key")
            if key is not None and info.mutates and caller is not None:
                return await self._idempotent(info, inner, request, context, key)
            return await _call(info, inner, request, context)
        except RateLimited as e:
            status, trailers = to_status(e), e.trailers
        except DomainError as e:
            status = to_status(e)
        except _Replayed as e:
            status = e.status
        except NotImplementedError:
            status = to_status(Unimplemented(f"{info.descriptor.name} is not implemented yet"))
        except IntegrityError:
            # A concurrent request changed what this one relied on (e.g. deleted a referenced row).
            status = to_status(Conflict("the request conflicts with a concurrent change; retry it",
                                        reason="concurrent_modification"))
        except Exception:
            log.exception("unhandled error in %s", info.path)
            status = internal_status()
        finally:
            caller_now = optional_caller()
            log.info("rpc", extra={
                "method": info.path,
                "code": _code_of(status.code).name if status else "OK",
                "ms": round((time.perf_counter() - started) * 1000, 2),
                "merchant": caller_now.merchant_id if caller_now else "",
            })
        await context.abort(_code_of(status.code), status.message,
                            trailing_metadata=((DETAILS_KEY, status.SerializeToString()), *trailers))
        raise AssertionError("unreachable: abort raises")

    async def _idempotent(self, info: MethodInfo, inner: Behavior, request: Message,
                          context: grpc.aio.ServicerContext, key: str) -> Message:
        caller = optional_caller()
        assert caller is not None
        scope = (self._db, caller.merchant_id, caller.livemode, key)
        digest = store.request_hash(info.path, request.SerializeToString(deterministic=True))
        stored = await store.claim(*scope, info.path, digest)
        if stored is not None:
            await context.send_initial_metadata((("idempotent-replayed", "true"),))
            if stored.status_code != store.OK:
                raise _Replayed(status_pb2.Status.FromString(stored.payload))
            return info.response_class.FromString(stored.payload)
        try:
            response = await _call(info, inner, request, context)
        except DomainError as e:
            await store.complete(*scope, store.Stored(e.code.value[0], to_status(e).SerializeToString()))
            raise
        except BaseException:
            await store.release(*scope)
            raise
        payload = response.SerializeToString(deterministic=True)
        await store.complete(*scope, store.Stored(store.OK, payload))
        # Answer with the stored bytes, so that the first answer and every replay are identical.
        return info.response_class.FromString(payload)


async def _call(info: MethodInfo, inner: Behavior, request: Message, context: grpc.aio.ServicerContext) -> Message:
    # Inside the idempotent section, so that a refusal for a missing field is stored and replayed like any other.
    check_required(info, request)
    result = inner(request, context)
    if inspect.isawaitable(result):
        result = await result
    return result


_BY_NUMBER = {c.value[0]: c for c in grpc.StatusCode}


def _code_of(number: int) -> grpc.StatusCode:
    return _BY_NUMBER.get(number, grpc.StatusCode.UNKNOWN)
