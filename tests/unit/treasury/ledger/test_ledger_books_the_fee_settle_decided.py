"""The processing fee is decided once, by `settle` (server/payment_intents/settle.py: the intent's `tx_fee`), and the
ledger books that figure for the transfers that pay the intent (server/treasury/ledger/listeners.py): a change of the
fee rule in settle alone changes the intent's fee and the ledger's fees together."""

from __future__ import annotations

from decimal import Decimal

import pytest

from server.payment_intents import settle
from server.payment_intents.env import Env
from server.treasury.ledger import postings
from server.treasury.ledger.models import Account, CauseType
from tests.unit.payment_intents.test_chain_listener import World, world  # noqa: F401


def _two_percent(env: Env, captured: Decimal, decimals: int) -> Decimal:
    """A rule other than the configured 1 %: only settle knows it."""
    return (captured * 2 / 100).quantize(Decimal(1).scaleb(-decimals))


def _booked(w: World, transfer_id: str) -> dict[Account, Decimal]:
    """Where the ledger put one transfer's money: available and fees (every address together; the other leg is the
    world outside it came from)."""
    async def go() -> dict[Account, Decimal]:
        async with w.db.read() as s:
            held = await postings.held(s, CauseType.TRANSFER, transfer_id)
        out: dict[Account, Decimal] = {}
        for holder, amount in held.items():
            out[holder.account] = out.get(holder.account, Decimal(0)) + amount
        return {a: v for a, v in out.items() if a in (Account.AVAILABLE, Account.FEES)}
    return w.run(go())  # type: ignore[no-any-return]


def test_the_ledger_books_the_fee_settle_decided_for_the_intent(world: World,  # noqa: F811
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settle, "processing_fee", _two_percent)
    intent_id, charge = world.intent_paying()
    paid = world.confirm(charge, "10")
    intent = world.intent(intent_id)
    assert (intent.tx_fee, intent.net_amount) == (Decimal("0.2"), Decimal("9.8"))
    booked = _booked(world, paid)
    assert (booked[Account.FEES], booked[Account.AVAILABLE]) == (Decimal("0.2"), Decimal("9.8"))


def test_a_later_part_books_what_the_intents_decided_fee_grew_by(world: World,  # noqa: F811
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settle, "processing_fee", _two_percent)
    intent_id, charge = world.intent_paying()
    first = world.confirm(charge, "4")
    second = world.confirm(charge, "6")
    assert world.intent(intent_id).tx_fee == Decimal("0.2")
    assert _booked(world, first) == {Account.FEES: Decimal("0.08"), Account.AVAILABLE: Decimal("3.92")}
    assert _booked(world, second) == {Account.FEES: Decimal("0.12"), Account.AVAILABLE: Decimal("5.88")}
