"""Typed domain errors, each carrying the spec's `error_code` and a gRPC code.

The gRPC pipeline turns them into `google.rpc.Status` + `ErrorInfo(reason=error_code)`; the HTTP facade
maps the gRPC code to the HTTP status of DESIGN.md with the standard grpc-gateway table. Nothing else
in the tree decides a status.

    DomainError
    ├── InvalidArgument        400  parameter_invalid, insufficient_funds, idempotency_key_reused, …
    │   └── MissingParameter   400  parameter_missing
    ├── Unauthenticated        401  unauthorized
    ├── Forbidden              403  forbidden
    ├── NotFound               404  <resource>_not_found
    ├── Conflict               409  payment_link_active, idempotency_in_progress, ErrStatusUnexpected, …
    ├── RateLimited            429  rate_limited (with a retry-after trailer → HTTP Retry-After)
    ├── Unimplemented          501  not_implemented
    └── Unavailable            503  service_unavailable
"""

from __future__ import annotations

import grpc


class DomainError(Exception):
    """A refusal the caller can act on. `reason` is the stable `error_code`."""

    code: grpc.StatusCode = grpc.StatusCode.INVALID_ARGUMENT
    reason: str = "parameter_invalid"
    # The unit of work commits what the call wrote before refusing (e.g. a counted failed attempt).
    keep_changes: bool = False

    def __init__(self, message: str, *, reason: str | None = None, field: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        if reason is not None:
            self.reason = reason


class InvalidArgument(DomainError):
    code = grpc.StatusCode.INVALID_ARGUMENT
    reason = "parameter_invalid"


def invalid(field: str, problem: str) -> InvalidArgument:
    """`parameter_invalid` whose message starts with the field's name."""
    return InvalidArgument(f"{field}: {problem}", field=field)


class MissingParameter(InvalidArgument):
    reason = "parameter_missing"

    def __init__(self, field: str, message: str | None = None) -> None:
        super().__init__(message or f"{field}: is required", field=field)


class Unauthenticated(DomainError):
    code = grpc.StatusCode.UNAUTHENTICATED
    reason = "unauthorized"


class Forbidden(DomainError):
    code = grpc.StatusCode.PERMISSION_DENIED
    reason = "forbidden"


class NotFound(DomainError):
    code = grpc.StatusCode.NOT_FOUND

    def __init__(self, resource: str, object_id: str = "") -> None:
        shown = f" {object_id!r}" if object_id else ""
        super().__init__(f"no such {resource.replace('_', ' ')}{shown}", reason=f"{resource}_not_found")


class Conflict(DomainError):
    # ABORTED is the code the standard table maps to 409.
    code = grpc.StatusCode.ABORTED
    reason = "conflict"


class Unimplemented(DomainError):
    code = grpc.StatusCode.UNIMPLEMENTED
    reason = "not_implemented"


class Unavailable(DomainError):
    code = grpc.StatusCode.UNAVAILABLE
    reason = "service_unavailable"


RETRY_AFTER = "retry-after"


class RateLimited(DomainError):
    """429 through the facade. The seconds to wait travel as the `retry-after` trailer (HTTP `Retry-After`)."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED
    reason = "rate_limited"

    def __init__(self, seconds: int, message: str = "", *, field: str = "") -> None:
        super().__init__(message or f"too many requests; retry after {seconds} s", field=field)
        self.trailers: tuple[tuple[str, str], ...] = ((RETRY_AFTER, str(max(1, seconds))),)
