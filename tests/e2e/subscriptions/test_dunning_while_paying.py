"""A payment under way decides before dunning or a cancel closes its invoice (DESIGN §8, server/subscriptions/
closing.py): no invoice of a canceled subscription takes money afterwards, and money already on its way is recorded.

* Dunning's last day comes while the renewal's payment confirms: dunning waits (the subscription is not canceled,
  the invoice stays open); the payment confirms and pays it, the subscription goes on.
* The same, but the payment's block is re-organised away: at dunning's next look the invoice is uncollectible, its
  intent canceled (its link takes no money), the subscription canceled (`payment_failed`).
* Canceled now while the payment confirms: the invoice stays open for that payment; once it failed the invoice is
  voided and its intent canceled; if it succeeds, it is paid (the first invoice of an incomplete subscription too).

The payment fails by a re-organisation (Anvil's evm_snapshot/evm_revert): it leaves nothing confirmed on the intent,
which can then be canceled. Sweeps are off here, so that paygate sends nothing the revert would undo.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.subscriptions.conftest import Inbox, serve
from tests.e2e.subscriptions.support import (
    DAY,
    advance,
    buy,
    club,
    customer,
    invoices,
    start_paying,
    subscribe,
    subscription,
    wait_for,
)
from tests.harness import Service, stop

RECHECK = 60  # server/subscriptions/closing.py RECHECK_SECONDS: when a waiting invoice is looked at again


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def paygate(request: pytest.FixtureRequest, chain: Chain, smtp: tuple[Inbox, int],
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = serve(request, chain, smtp, tmp_path_factory, {"PAYGATE_SWEEPS": "false"})
    yield svc
    stop(svc)


def renewal_due(shop: httpx.Client, chain: Chain) -> tuple[dict[str, Any], dict[str, Any]]:
    """An active crypto subscription at its first period end, and that open renewal invoice (e-mailed)."""
    sub = subscribe(shop, chain, club(shop), customer(shop))
    advance(shop, sub["id"], sub["current_period_end"] + 60)
    renewal = invoices(shop, sub["id"])[-1]
    assert (renewal["status"], renewal["billing_reason"]) == ("open", "subscription_cycle")
    return sub, renewal


def intent_of(shop: httpx.Client, inv: dict[str, Any]) -> dict[str, Any]:
    return ok(shop.get(f"/v1/payment_intents/{inv['payment_intent_id']}"))  # type: ignore[no-any-return]


def invoice(shop: httpx.Client, inv: dict[str, Any]) -> dict[str, Any]:
    return ok(shop.get(f"/v1/invoices/{inv['id']}"))  # type: ignore[no-any-return]


def payment_fails(shop: httpx.Client, chain: Chain, snapshot: str, inv: dict[str, Any]) -> None:
    """The block of the payment leaves the chain: the intent needs a payment again."""
    chain.revert(snapshot)
    chain.mine(2)
    wait_for(lambda: intent_of(shop, inv), lambda i: i["status"] == "RequiresPaymentMethod")


def takes_no_money(shop: httpx.Client, inv: dict[str, Any]) -> None:
    fails(shop.post(f"/v1/payment_intents/{inv['payment_intent_id']}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": "USDT-ETH-TEST"}}}),
        409, "payment_intent_unexpected_state")


def test_dunning_waits_for_a_confirming_payment_which_then_pays_the_renewal(shop: httpx.Client, chain: Chain) -> None:
    sub, renewal = renewal_due(shop, chain)
    start_paying(shop, chain, renewal["payment_intent_id"])
    waiting = advance(shop, sub["id"], renewal["period_start"] + 7 * DAY + 60)  # past its due date and last day
    assert (waiting["status"], waiting["canceled_at"]) == ("active", None)
    assert invoice(shop, renewal)["status"] == "open"
    chain.mine(3)
    paid = wait_for(lambda: invoice(shop, renewal), lambda i: i["status"] == "paid")
    assert paid["amount_paid"] == "10.00"
    after = subscription(shop, sub["id"])
    assert (after["status"], after["current_cycle_number"], after["current_period_start"]) == (
        "active", 2, renewal["period_start"])


def test_dunning_gives_up_at_its_next_look_once_the_payment_under_way_failed(
        shop: httpx.Client, chain: Chain) -> None:
    sub, renewal = renewal_due(shop, chain)
    before = chain.snapshot()
    start_paying(shop, chain, renewal["payment_intent_id"])
    last_day = renewal["period_start"] + 7 * DAY + 60
    assert advance(shop, sub["id"], last_day)["status"] == "active"
    payment_fails(shop, chain, before, renewal)
    ended = advance(shop, sub["id"], last_day + RECHECK + 60)
    assert (ended["status"], ended["cancel_reason"]) == ("canceled", "payment_failed")
    assert invoice(shop, renewal)["status"] == "uncollectible"
    intent = intent_of(shop, renewal)
    assert (intent["status"], intent["cancellation_reason"]) == ("Canceled", "invoice_uncollectible")
    takes_no_money(shop, renewal)


def test_an_invoice_a_cancel_left_to_its_payment_is_voided_as_soon_as_that_payment_failed(
        shop: httpx.Client, chain: Chain) -> None:
    sub, renewal = renewal_due(shop, chain)
    before = chain.snapshot()
    start_paying(shop, chain, renewal["payment_intent_id"])
    canceled = ok(shop.post(f"/v1/subscriptions/{sub['id']}/cancel", json={"cancel_at_period_end": False}))
    assert canceled["status"] == "canceled"
    assert invoice(shop, renewal)["status"] == "open"  # its payment is under way: that payment decides
    payment_fails(shop, chain, before, renewal)
    # The failure made the close due at once, not at the next look RECHECK seconds after the cancel: the next step
    # (the scheduler's pass, here the test clock's) closes it.
    advance(shop, sub["id"], canceled["test_clock"]["frozen_time"] + 1)
    assert invoice(shop, renewal)["status"] == "void"
    intent = intent_of(shop, renewal)
    assert (intent["status"], intent["cancellation_reason"]) == ("Canceled", "invoice_void")
    takes_no_money(shop, renewal)


def test_a_first_payment_under_way_when_the_subscription_is_canceled_still_pays_its_invoice(
        shop: httpx.Client, chain: Chain) -> None:
    intent = buy(shop, club(shop), customer(shop))
    start_paying(shop, chain, intent["id"])
    canceled = ok(shop.post(f"/v1/subscriptions/{intent['subscription']}/cancel",
                            json={"cancel_at_period_end": False}))
    assert canceled["status"] == "canceled"
    chain.mine(3)
    paid = wait_for(lambda: ok(shop.get(f"/v1/invoices/{intent['invoice']}")), lambda i: i["status"] == "paid")
    assert paid["amount_paid"] == "10.00"
    assert subscription(shop, intent["subscription"])["status"] == "canceled"
