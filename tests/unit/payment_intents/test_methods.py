"""A payment method is its handler (server/payment_intents/methods.py): a third one, registered, is chosen, settled
and answered through it, with no edit to the service, settle, the chain listener or the answer's shape."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa
from paygate.v1 import payment_intents_pb2 as pb
from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.errors import InvalidArgument
from server.ids import new_id
from server.payment_intents import methods, service, settle
from server.payment_intents.aggregate import Loaded
from server.payment_intents.env import Env
from server.payment_intents.methods import RefundRoute
from server.payment_intents.models import Charge, PaymentIntent
from server.payment_intents.states import ChargeStatus
from tests.unit.payment_intents.test_chain_listener import World, world  # noqa: F401

VOUCHER = "voucher"


@dataclass
class Voucher:
    """A method whose attempt is paid at once, in the intent's currency, by a provider that is not a chain."""

    name: str = VOUCHER
    options_field: str = "crypto"  # never reached: crypto's comes first when the type is left out
    order_label: str = "Voucher"
    counts_transfers: bool = False
    refund_route: RefundRoute = RefundRoute.PROVIDER
    withdrawn: list[str] = field(default_factory=list)

    async def open_attempt(self, session: AsyncSession, env: Env, loaded: Loaded,
                           options: pb.PaymentMethodOptionsInput, cards: Any) -> Loaded:
        intent = loaded.intent
        session.add(Charge(id=new_id("ch"), payment_intent_id=intent.id, merchant_id=intent.merchant_id,
                           livemode=intent.livemode, payment_method_type=self.name, asset_id=intent.currency,
                           network="", amount=intent.amount, exchange_rate=Decimal(1), deposit_address="",
                           address_index=0, quote_expires_at=intent.expired_at, status=ChargeStatus.SUCCESS,
                           amount_captured=intent.amount, created=now_of(session)))
        intent.payment_method_type = self.name
        session.add(intent)
        await session.flush()
        settled = await settle.settle(session, env, intent.id)
        assert settled is not None
        return settled

    async def withdraw_open(self, session: AsyncSession, env: Env, loaded: Loaded, cards: Any) -> None:
        self.withdrawn.append(loaded.intent.id)

    def answer_charge(self, env: Env, charge: Charge, status: str, out: pb.Charge) -> None:
        out.failure_message = f"voucher {charge.id}"

    def answer_intent(self, env: Env, latest: Charge, out: pb.PaymentIntent) -> None:
        out.payment_method_options.SetInParent()

    def holding(self) -> sa.ColumnElement[bool] | None:
        return None

    async def offered(self, session: AsyncSession, merchant_id: str, livemode: bool) -> bool:
        return True

    async def renews_with(self, session: AsyncSession, intent: PaymentIntent) -> None:
        return None


@pytest.fixture
def voucher(monkeypatch: pytest.MonkeyPatch) -> Voucher:
    method = Voucher()
    monkeypatch.setitem(methods.registered(), VOUCHER, method)  # type: ignore[index]
    return method


def choose(w: World, intent_id: str, method: str) -> Loaded:
    async def run() -> Loaded:
        async with w.db.transaction() as s:
            chosen = await service.update(s, w.env, w.cancel_caller, pb.UpdatePaymentIntentRequest(
                id=intent_id, payment_method_type=method))
        assert isinstance(chosen, Loaded)
        return chosen

    return w.run(run())  # type: ignore[no-any-return]


def test_a_registered_method_is_chosen_settled_and_answered_through_its_handler(world: World,  # noqa: F811
                                                                                 voucher: Voucher) -> None:
    intent_id, crypto = world.intent_paying()
    assert voucher.withdrawn == [intent_id]  # choosing crypto withdrew the other methods' open attempts first
    choose(world, intent_id, VOUCHER)
    intent = world.intent(intent_id)
    # Paid by what its charge captured, not by transfers to an address: settle asked the handler.
    assert (intent.status, intent.payment_method_type, intent.paid_asset_id, intent.amount_captured) == (
        "Success", VOUCHER, "USD", Decimal(10))
    assert world.events(intent_id) == ["payment_intent.created", "payment_intent.processing",
                                       "payment_intent.succeeded"]
    shown = world.proto(intent_id)
    by_id = {c.id: c for c in shown.charges}
    [paid] = [c for c in shown.charges if c.id != crypto.id]
    assert paid.failure_message == f"voucher {paid.id}" and not paid.HasField("payment_method_options")
    assert by_id[crypto.id].payment_method_options.crypto.deposit_address == crypto.deposit_address
    # The intent's part is the current attempt's method's: no crypto deposit address for a voucher.
    assert shown.HasField("payment_method_options") and not shown.payment_method_options.HasField("crypto")


def test_an_unregistered_method_is_refused_naming_the_registered_ones(world: World) -> None:  # noqa: F811
    intent_id, _ = world.intent_paying()
    with pytest.raises(InvalidArgument, match="use crypto or cards"):
        choose(world, intent_id, VOUCHER)


def test_an_intent_with_no_method_chosen_is_crypto_s() -> None:
    assert methods.of("") is methods.of("crypto") and methods.of("cards").name == "cards"
