"""The response envelope and the gRPC → HTTP error mapping (grpc-gateway's standard table)."""

from __future__ import annotations

from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2
from starlette.responses import Response

from wire.codec import dumps

HTTP_STATUS = {
    grpc.StatusCode.OK: 200, grpc.StatusCode.CANCELLED: 499, grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400, grpc.StatusCode.DEADLINE_EXCEEDED: 504, grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409, grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.UNAUTHENTICATED: 401, grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400, grpc.StatusCode.ABORTED: 409, grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501, grpc.StatusCode.INTERNAL: 500, grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
}
# error_code when the server sent no ErrorInfo (e.g. the gRPC server is down).
FALLBACK_REASON = {
    401: "unauthorized", 403: "forbidden", 404: "not_found", 409: "conflict", 429: "rate_limited",
    500: "server_error", 501: "not_implemented", 503: "service_unavailable", 504: "service_unavailable",
}
DETAILS_KEY = "grpc-status-details-bin"


def json_response(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(dumps(payload), status_code=status, headers=headers, media_type="application/json")


def success(data: Any, *, with_data: bool = True, msg: str = "success") -> dict[str, Any]:
    body: dict[str, Any] = {"code": 0, "error_code": "success", "msg": msg}
    if with_data:
        body["data"] = data
    return body


def error(status: int, error_code: str, msg: str, headers: dict[str, str] | None = None) -> Response:
    if status == 401:
        headers = {**(headers or {}), "WWW-Authenticate": 'Basic realm="paygate"'}
    return json_response({"code": status, "error_code": error_code, "msg": msg, "data": {}}, status, headers)


def from_rpc_error(err: grpc.aio.AioRpcError) -> tuple[int, str, str]:
    """(HTTP status, error_code, msg) of a failed call; never internals of the server."""
    code = err.code()
    status = HTTP_STATUS.get(code, 500)
    for key, value in err.trailing_metadata() or ():
        if key == DETAILS_KEY and isinstance(value, bytes):
            rpc_status = status_pb2.Status.FromString(value)
            for detail in rpc_status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return status, info.reason, rpc_status.message
    if code == grpc.StatusCode.UNAVAILABLE:
        return 503, "service_unavailable", "the service is unavailable; retry shortly"
    return status, FALLBACK_REASON.get(status, "server_error"), (
        "internal error" if status >= 500 else (err.details() or "request failed"))


def retry_after(err: grpc.aio.AioRpcError) -> dict[str, str]:
    """The server's `retry-after` trailer (rate limits) as the HTTP `Retry-After` header."""
    for key, value in err.trailing_metadata() or ():
        if key == "retry-after" and isinstance(value, str) and value.isdigit():
            return {"Retry-After": value}
    return {}
