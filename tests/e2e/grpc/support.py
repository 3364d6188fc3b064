"""Reading a failed gRPC call the way a gRPC client of paygate does: status code plus `ErrorInfo` in the trailers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status


def error_info(err: grpc.RpcError) -> error_details_pb2.ErrorInfo:
    """The single `ErrorInfo` of the `google.rpc.Status` in the `grpc-status-details-bin` trailer."""
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None, f"no google.rpc.Status in the trailers of {err!r}"
    assert status.code == err.code().value[0], status  # type: ignore[attr-defined]
    infos = []
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            infos.append(info)
    assert len(infos) == 1, status
    return infos[0]


def fails(call: Callable[[], Any], code: grpc.StatusCode, reason: str, field: str | None = None) -> grpc.RpcError:
    """Runs `call`, checks that it fails with `code` and `ErrorInfo.reason`, and with `field` when given
    (in the ErrorInfo metadata and at the start of the message, as the HTTP `msg` names it)."""
    try:
        call()
    except grpc.RpcError as err:
        assert err.code() == code, (err.code(), err.details())  # type: ignore[attr-defined]
        info = error_info(err)
        assert info.reason == reason, (info, err.details())  # type: ignore[attr-defined]
        assert info.domain == "paygate", info
        details = err.details() or ""  # type: ignore[attr-defined]
        assert "Traceback" not in details, details
        if field is not None:
            assert info.metadata["field"] == field, info
            assert details.startswith(field), details
        return err
    raise AssertionError(f"expected {code.name} {reason}, the call succeeded")
