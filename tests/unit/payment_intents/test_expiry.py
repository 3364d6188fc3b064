"""The expiry job reads the runtime's clock (server/runtime.py), not the wall clock."""

from __future__ import annotations

from dataclasses import replace

from server.payment_intents.expiry import expire_payment_intents
from server.payment_intents.states import Status
from server.runtime import Runtime
from tests.unit.payment_intents.test_chain_listener import World, world  # noqa: F401


class FixedClock:
    def __init__(self, at: int) -> None:
        self.at = at

    def now(self) -> int:
        return self.at


def expire_at(w: World, at: int) -> None:
    assert isinstance(w.env, Runtime)
    w.run(expire_payment_intents(replace(w.env, clock=FixedClock(at))))


def test_the_expiry_job_leaves_an_intent_open_until_its_runtimes_clock_reaches_expired_at(world: World) -> None:  # noqa: F811
    intent_id, _ = world.intent_paying()
    expire_at(world, world.intent(intent_id).expired_at - 1)
    assert world.intent(intent_id).status == Status.REQUIRES_PAYMENT_METHOD


def test_the_expiry_job_cancels_an_intent_once_its_runtimes_clock_reaches_expired_at(world: World) -> None:  # noqa: F811
    intent_id, _ = world.intent_paying()
    expire_at(world, world.intent(intent_id).expired_at)
    intent = world.intent(intent_id)
    assert (intent.status, intent.cancellation_reason) == (Status.CANCELED, "expired")
