"""Payments' part of the composition root: the chain listener that settles intents, and the expiry job."""

from __future__ import annotations

from functools import partial

from server.chains import hooks
from server.payment_intents import chain_listener, expiry
from server.runtime import Runtime


def register(rt: Runtime) -> None:
    hooks.listen(rt.db, partial(chain_listener.on_transfer_changed, rt))
    rt.add_job("expire_payment_intents", expiry.expire_payment_intents, expiry.INTERVAL_SECONDS)
