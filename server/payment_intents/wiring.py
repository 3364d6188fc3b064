"""Payments' part of the composition root: the chain listener that settles intents, and the expiry job."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from server.chains import hooks
from server.payment_intents import chain_listener, expiry
from server.payment_intents.servicer import PaymentIntentServicer
from server.runtime import Runtime

# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.PaymentIntentService": PaymentIntentServicer,
}


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
    hooks.listen(rt.db, stage=hooks.Stage.ATTRIBUTE, listener=partial(chain_listener.on_transfer_changed, rt))
    rt.add_job("expire_payment_intents", expiry.expire_payment_intents, expiry.INTERVAL_SECONDS)
