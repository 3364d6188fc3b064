"""The treasury's part of the composition root: the ledger's listeners on transfers and refund events."""

from __future__ import annotations

from functools import partial

from server.chains import hooks
from server.events import outbox
from server.runtime import Runtime
from server.treasury import listeners


def register(rt: Runtime) -> None:
    hooks.listen(rt.db, partial(listeners.on_transfer_changed, rt))
    outbox.subscribe(rt.db, partial(listeners.on_event, rt))
