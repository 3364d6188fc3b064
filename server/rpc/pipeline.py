"""The server interceptor: every unary RPC of paygate runs through `Pipeline._run`.

Order: request id → authentication (by the RPC's policy; a checkout call's own credentials) → idempotency →
required fields → servicer. Domain errors become `google.rpc.Status` with `ErrorInfo(reason=error_code)` in the
trailers; any other exception is logged with the request id and answered as `server_error` without internals.

The interceptor fails closed: a method it does not know (or a streaming one) is refused, unless it is one of the
standard services that need no credential (health checking, reflection).
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
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from server.context import client_ip, optional_caller, request_id, request_id_of, set_caller
from server.db import Database
from server.db.engine import before_commit, run_to_end
from server.errors import Conflict, DomainError, Unavailable, Unimplemented
from server.idempotency import store
from server.ratelimit import Limiter, RateLimited
from server.ratelimit.client_ip import peer_address
from server.rpc.auth import Authenticator, new_call_cache
from server.rpc.methods import MethodInfo, check_required
from server.sealing import SecretBox

log = logging.getLogger("paygate.rpc")
DETAILS_KEY = "grpc-status-details-bin"
ERROR_DOMAIN = "paygate"
# Services that are not paygate's API and need no credential; every other method must be a known unary RPC.
OPEN_SERVICES = ("/grpc.health.v1.Health/", "/grpc.reflection.v1alpha.ServerReflection/",
                 "/grpc.reflection.v1.ServerReflection/")


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
                 limits: Limiter | None = None, *, box: SecretBox | None = None) -> None:
        """`box` seals the answers kept for Idempotency-Keys (server/idempotency/store.py)."""
        self._methods = methods
        self._auth = auth
        self._db = db
        self._limits = limits
        self._box = box

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or method.startswith(OPEN_SERVICES):
            return handler  # None: gRPC itself answers UNIMPLEMENTED for a method nobody serves
        info = self._methods.get(method)
        if info is None or handler.unary_unary is None:
            return _refusal(handler, method)
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
        # The same rule as the facade's: the id goes into logs, so only a short plain one is kept.
        request_id.set(request_id_of(metadata.get("x-request-id")))
        peer = context.peer()
        client_ip.set(self._limits.client_of(metadata, peer) if self._limits else peer_address(peer))
        new_call_cache()
        started = time.perf_counter()
        status: status_pb2.Status | None = None
        trailers: tuple[tuple[str, str], ...] = ()
        try:
            caller = await self._auth.authenticate(info.auth, metadata.get("authorization"))
            if caller is None and info.auth == options_pb2.AUTH_POLICY_SECRET_OR_CLIENT_SECRET:
                await self._auth.check_checkout_credentials(request)
            set_caller(caller)
            if self._limits is not None:
                await self._limits.check(info, caller, request, metadata, peer)
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
        except (OperationalError, PoolTimeout) as e:
            # The database could not take the work now (no free connection, the server's connection limit, a lock
            # wait that ran out): transient, so 503 and try again, not a 500. A connection lost during COMMIT leaves
            # the outcome unknown to us too; an Idempotency-Key makes that retry safe.
            log.warning("database unavailable in %s", info.path, extra={"error": type(e.orig or e).__name__
                                                                        if isinstance(e, OperationalError)
                                                                        else type(e).__name__})
            status = to_status(Unavailable("the database is busy; try again"))
        except Exception:
            log.exception("unhandled error in %s", info.path)
            status = internal_status()
        finally:
            caller_now = optional_caller()
            entry: dict[str, object] = {"method": info.path, "code": _code_of(status.code).name if status else "OK",
                                        "merchant": caller_now.merchant_id if caller_now else ""}
            line: dict[str, object] | None = getattr(context, "access_log", None)
            if line is not None and "method" not in line:
                line.update(entry)  # the facade writes it, in its access line
            else:
                entry["ms"] = round((time.perf_counter() - started) * 1000, 2)
                log.info("rpc", extra=entry)
        await context.abort(_code_of(status.code), status.message,
                            trailing_metadata=((DETAILS_KEY, status.SerializeToString()), *trailers))
        raise AssertionError("unreachable: abort raises")

    async def _idempotent(self, info: MethodInfo, inner: Behavior, request: Message,
                          context: grpc.aio.ServicerContext, key: str) -> Message:
        digest = store.request_hash(info.path, request.SerializeToString(deterministic=True))
        # The claim, the call and the storing of its answer run to their end even when the client goes away (a
        # deadline): once a side effect has committed its answer must be stored, or a retry could only run it again;
        # and a claim left without its call would make retries wait for the lease.
        claimed = await run_to_end(self._claim_run_and_store(info, inner, request, context, key, digest))
        if isinstance(claimed, store.Stored):
            await context.send_initial_metadata((("idempotent-replayed", "true"),))
            if claimed.status_code != store.OK:
                raise _Replayed(status_pb2.Status.FromString(claimed.payload))
            return info.response_class.FromString(claimed.payload)
        # Answer with the stored bytes, so that the first answer and every replay are identical.
        return info.response_class.FromString(claimed)

    async def _claim_run_and_store(self, info: MethodInfo, inner: Behavior, request: Message,
                                   context: grpc.aio.ServicerContext, key: str, digest: str) -> store.Stored | bytes:
        """The stored outcome to replay, or the answer of this run (bytes) once stored; a domain error is stored
        and raised."""
        caller = optional_caller()
        assert caller is not None
        lease = await store.claim(self._db, caller.merchant_id, caller.livemode, key, info.path, digest,
                                  box=self._box)
        if isinstance(lease, store.Stored):
            return lease
        scope = (self._db, lease.merchant_id, lease.livemode, lease.key)
        try:
            response = await _call_marking(lease, info, inner, request, context)
        except DomainError as e:
            await store.complete(*scope, store.Stored(e.code.value[0], to_status(e).SerializeToString()),
                                 box=self._box)
            lease.completed = True
            raise
        except BaseException:
            if not lease.commit_began:  # nothing of this call can have been applied: a retry may run it again
                await store.release(*scope)
            raise
        payload = response.SerializeToString(deterministic=True)
        await store.complete(*scope, store.Stored(store.OK, payload), box=self._box)
        lease.completed = True
        return payload


async def _call_marking(lease: store.Lease, info: MethodInfo, inner: Behavior, request: Message,
                        context: grpc.aio.ServicerContext) -> Message:
    """The call, with each of its write transactions marking the key `committed` in that same transaction."""
    token = before_commit.set(lease.mark_committed)
    try:
        return await _call(info, inner, request, context)
    finally:
        before_commit.reset(token)


async def _call(info: MethodInfo, inner: Behavior, request: Message, context: grpc.aio.ServicerContext) -> Message:
    # Inside the idempotent section, so that a refusal for a missing field is stored and replayed like any other.
    check_required(info, request)
    result = inner(request, context)
    if inspect.isawaitable(result):
        result = await result
    return result


def _refusal(handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
    """A handler of the same shape as `handler` that answers UNIMPLEMENTED without running it."""
    async def refuse(request: Any, context: grpc.aio.ServicerContext) -> None:
        log.warning("refused a method outside the pipeline", extra={"method": method[:200]})
        error = Unimplemented(f"{method[:200]} is not available")
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, error.message,
                            trailing_metadata=((DETAILS_KEY, to_status(error).SerializeToString()),))

    kinds = {
        "unary_unary": grpc.unary_unary_rpc_method_handler,
        "unary_stream": grpc.unary_stream_rpc_method_handler,
        "stream_unary": grpc.stream_unary_rpc_method_handler,
        "stream_stream": grpc.stream_stream_rpc_method_handler,
    }
    kind = next(k for k in kinds if getattr(handler, k) is not None)
    return kinds[kind](refuse, request_deserializer=handler.request_deserializer,
                       response_serializer=handler.response_serializer)


_BY_NUMBER = {c.value[0]: c for c in grpc.StatusCode}


def _code_of(number: int) -> grpc.StatusCode:
    return _BY_NUMBER.get(number, grpc.StatusCode.UNKNOWN)
