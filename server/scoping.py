"""Who may see an object: the merchant that owns it, through a key of the object's mode.

Unknown ids, other merchants' objects and test objects named with a live key are all `<resource>_not_found`,
so existence never leaks; the merchant's own live object named with a test key is `forbidden` (DESIGN.md §2:
a valid credential used where it is not allowed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from sqlmodel.ext.asyncio.session import AsyncSession

from server.errors import Forbidden, NotFound
from server.rpc.context import Caller


class Owned(Protocol):
    merchant_id: str
    livemode: bool


T = TypeVar("T", bound=Owned)


def _visible(row: T | None, caller: Caller, alive: Callable[[T], bool] | None) -> bool:
    return row is not None and row.merchant_id == caller.merchant_id and (alive is None or alive(row))


async def find_owned(session: AsyncSession, model: type[T], object_id: str, caller: Caller, *,
                     alive: Callable[[T], bool] | None = None) -> T | None:
    """The caller's object in the caller's mode, or None."""
    row = await session.get(model, object_id) if object_id else None
    if row is None or not _visible(row, caller, alive) or row.livemode != caller.livemode:
        return None
    return row


async def get_owned(session: AsyncSession, model: type[T], object_id: str, caller: Caller, resource: str, *,
                    alive: Callable[[T], bool] | None = None) -> T:
    """The caller's object in the caller's mode, or the refusal the module docstring describes."""
    row = await session.get(model, object_id) if object_id else None
    if row is None or not _visible(row, caller, alive):
        raise NotFound(resource, object_id)
    if row.livemode != caller.livemode:
        if row.livemode:
            raise Forbidden(f"a test key cannot reach a live-mode {resource.replace('_', ' ')}; "
                            "use the live secret key")
        raise NotFound(resource, object_id)
    return row
