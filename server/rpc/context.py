"""Per-call facts the pipeline establishes and servicers read."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from server.errors import Unauthenticated


@dataclass(frozen=True)
class Caller:
    """Who is calling: the merchant and the mode its key decides."""

    merchant_id: str
    livemode: bool
    key_kind: str  # "secret" or "public"


_caller: ContextVar[Caller | None] = ContextVar("caller", default=None)
request_id: ContextVar[str] = ContextVar("request_id", default="")


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
