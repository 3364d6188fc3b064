"""Who may see an object: the merchant that owns it, through a key of the object's mode.

Unknown ids, other merchants' objects and test objects named with a live key are all `<resource>_not_found`,
so existence never leaks; the merchant's own live object named with a test key is `forbidden` (DESIGN.md §2:
a valid credential used where it is not allowed). An object named in a body is found with `find_owned` and its
absence answered by the caller as a 400 for that field (DESIGN §11). Lists select `in_scope` rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from server.context import Caller
from server.db.construct import read_by_key
from server.db.engine import READ_ONLY
from server.errors import Forbidden, NotFound


class Owned(Protocol):
    merchant_id: str
    livemode: bool


T = TypeVar("T", bound=Owned)


def _visible(row: T | None, caller: Caller, alive: Callable[[T], bool] | None) -> bool:
    return row is not None and row.merchant_id == caller.merchant_id and (alive is None or alive(row))


def in_scope(model: type[T], caller: Caller) -> list[Any]:
    """The conditions a list puts on `model`'s rows: the caller's merchant, the caller's mode."""
    return [col(model.merchant_id) == caller.merchant_id, col(model.livemode) == caller.livemode]


def _forbidden(resource: str) -> Forbidden:
    return Forbidden(f"a test key cannot reach a live-mode {resource.replace('_', ' ')}; use the live secret key")


async def _get(session: AsyncSession, model: type[T], object_id: str, lock: bool) -> T | None:
    """`lock`: the row locked until the end of the transaction (and read again if the session held it)."""
    if not object_id:
        return None
    if not lock and session.info.get(READ_ONLY):
        return await read_by_key(session, model, object_id)
    return await session.get(model, object_id, with_for_update=lock, populate_existing=lock)


async def find_owned(session: AsyncSession, model: type[T], object_id: str, caller: Caller, *,
                     alive: Callable[[T], bool] | None = None, forbidden: str = "", lock: bool = False) -> T | None:
    """The caller's object in the caller's mode, or None. With `forbidden` (the resource's name), the merchant's own
    live object named with a test key is refused as `forbidden` instead, as get_owned does."""
    row = await _get(session, model, object_id, lock)
    if row is None or not _visible(row, caller, alive):
        return None
    if row.livemode != caller.livemode:
        if forbidden and row.livemode:
            raise _forbidden(forbidden)
        return None
    return row


async def get_owned(session: AsyncSession, model: type[T], object_id: str, caller: Caller, resource: str, *,
                    alive: Callable[[T], bool] | None = None, lock: bool = False) -> T:
    """The caller's object in the caller's mode, or the refusal the module docstring describes."""
    row = await _get(session, model, object_id, lock)
    if row is None or not _visible(row, caller, alive):
        raise NotFound(resource, object_id)
    if row.livemode != caller.livemode:
        if row.livemode:
            raise _forbidden(resource)
        raise NotFound(resource, object_id)
    return row
