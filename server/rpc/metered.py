"""The gRPC port's request metrics (server/metrics.py, transport "grpc"): an interceptor in front of the pipeline.

Only the network server has it (server/boot/grpc_server.py): the facade's in-process calls are counted by the
facade itself, as transport "http". A facade in another process (`--only http`) calls over this port, and its
requests count once at each edge.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc

from server import metrics
from server.rpc.pipeline import OPEN_SERVICES


class Metered(grpc.aio.ServerInterceptor):
    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or handler.unary_unary is None or method.startswith(OPEN_SERVICES):
            return handler  # health checks and reflection are not the API's requests
        inner = handler.unary_unary
        rpc = method[1:]

        async def behavior(request: Any, context: grpc.aio.ServicerContext) -> Any:
            started = time.perf_counter()
            status = "server_error"
            try:
                response = await inner(request, context)
                status = "ok"
                return response
            except BaseException:
                # The pipeline aborted with the error's google.rpc.Status in the trailers.
                status = metrics.error_code_of(context.trailing_metadata())
                raise
            finally:
                metrics.request_done(rpc, status, "grpc", time.perf_counter() - started)

        return grpc.unary_unary_rpc_method_handler(behavior, request_deserializer=handler.request_deserializer,
                                                   response_serializer=handler.response_serializer)
