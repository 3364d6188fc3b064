"""Card money is not in the treasury's ledger (DESIGN §15 is about the money paygate holds for a merchant on chain):
a card payment settles at provider_a, into the merchant's own provider_a account, and provider_a pays it out; a card
refund is paid back by provider_a from that account. So neither posts to the ledger, and `GET /v1/stats/balance`
(which answers the ledger's sums) shows none of it: no per-asset line, zero totals."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import ok
from tests.e2e.cards.support import SUCCEEDS, chose_card, new_intent, refund_ends
from tests.localstripe import LocalStripe

EMPTY = {"available_balance": "0", "pending_balance": "0", "locked_balance": "0", "frozen_balance": "0",
         "total_balance": "0", "balance_details": []}


def balance(api: httpx.Client) -> dict[str, Any]:
    return ok(api.get("/v1/stats/balance"))  # type: ignore[no-any-return]


def shown(found: dict[str, Any]) -> dict[str, Any]:
    return {k: found.get(k, [] if k == "balance_details" else None) for k in EMPTY}


def test_a_card_payment_and_its_refund_leave_the_treasury_balance_untouched(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    assert shown(balance(api)) == EMPTY
    intent = new_intent(api, amount="10.50")
    paid = chose_card(api, intent["id"], token=localstripe.tokenize(merchant["provider_a"]["publishable_key"],
                                                                    SUCCEEDS))
    assert paid["status"] == "Success"
    after_payment = balance(api)
    assert (after_payment["currency"], shown(after_payment)) == ("USD", EMPTY)
    [refunded] = ok(api.post("/v1/refunds", json={"payment_intent_id": intent["id"], "amount": "4"}))["refunds"]
    assert refunded["status"] == "Pending"
    assert shown(balance(api)) == EMPTY
    refund_ends(api, refunded["id"])
    assert shown(balance(api)) == EMPTY
    assert ok(api.get("/v1/sweeps")).get("sweeps", []) == []  # nothing on chain to sweep either
