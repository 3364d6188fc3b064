"""Per-call facts the pipeline establishes and servicers read: the caller, the request id, the client address. A leaf
module (it imports only `server.errors`), so scoping, logs, rate limits and the facade read it without importing the
RPC pipeline."""

from __future__ import annotations

import re
import secrets
from contextvars import ContextVar
from dataclasses import dataclass

from server.errors import Unauthenticated

_ACCEPTABLE_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


def request_id_of(sent: str | None) -> str:
    """`sent` when it is 1 to 64 of [A-Za-z0-9._-]; otherwise a new random id. One rule for HTTP and gRPC
    callers: the id goes into logs and travels on as metadata, so only a short plain one is kept."""
    return sent if sent and _ACCEPTABLE_REQUEST_ID.fullmatch(sent) else secrets.token_hex(8)


@dataclass(frozen=True)
class Caller:
    """Who is calling: the merchant and the mode its key decides."""

    merchant_id: str
    livemode: bool
    key_kind: str  # "secret" or "public"
    key_id: str = ""  # the api_keys row (audit trails); empty for callers paygate makes itself
    role: str = ""  # "" or "approver" (DESIGN §15)


# Per call, not per process: each gRPC call runs in its own task, whose context holds these values.
_caller: ContextVar[Caller | None] = ContextVar("caller", default=None)
request_id: ContextVar[str] = ContextVar("request_id", default="")
# The calling client's address as the pipeline believes it (server/ratelimit/client_ip.py: the facade's
# `x-forwarded-for` only from a trusted peer); "" outside a call. Per-shopper limits key on it.
client_ip: ContextVar[str] = ContextVar("client_ip", default="")
# The facade's access-log line of the request being answered; an in-process call carries it to the pipeline
# (server/rpc/inprocess.py), which puts its fields (method, code, merchant) there instead of writing a second line.
# Read only where the call is made: a gRPC server's task may have inherited another request's context.
access_log: ContextVar[dict[str, object] | None] = ContextVar("access_log", default=None)


def current_caller() -> Caller:
    """The authenticated merchant; only RPCs whose policy admits anonymous calls may lack one."""
    caller = _caller.get()
    if caller is None:
        raise Unauthenticated("an API key is required")
    return caller


def optional_caller() -> Caller | None:
    return _caller.get()


def set_caller(caller: Caller | None) -> None:
    _caller.set(caller)
