"""The processing fee in the ledger is the intent's (`payment_details.tx_fee`, rounded once per intent), however the
intent was paid: each transfer that pays it posts fee(all that paid it so far) less what the others posted, so the
merchant's available money is the intent's `net_amount` to the last unit (server/treasury/ledger/listeners.py).

A 1 USD intent in USDT (6 decimals, 1 % fee), paid in parts whose fees, rounded one by one, would add up to more
(0.00005 + 0.00005 + 0.9999: 0.000001 + 0.000001 + 0.009999) or to less (ten of 0.000049 + 0.99951: 10 x 0 + 0.009995)
than the intent's 0.01."""

from __future__ import annotations

from typing import Any

import pytest

from tests.chain import Chain
from tests.e2e.paid_on_chain.test_paid_on_chain import open_intent, wait_for
from tests.e2e.refunds.support import PAYER
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.payout_support import available

USDT = "USDT-ETH-TEST"
pytestmark = pytest.mark.timeout(300)


def paid_in_parts(chain: Chain, shop: Merchant, parts: list[int]) -> dict[str, Any]:
    intent_id, quote = open_intent(shop.api, USDT, "1")
    assert quote["amount"] == "1" and sum(parts) == 1_000_000
    for part in parts:
        chain.send_token("USDT", PAYER, quote["deposit_address"], part)
    chain.mine(3)
    return wait_for(shop.api, intent_id, lambda i: i["status"] == "Success"
                    and len(i["charges"][0]["transactions"] or []) == len(parts)
                    and all(t["aml_status"] == "approved" for t in i["charges"][0]["transactions"]))


def test_parts_whose_fees_round_up_one_by_one_leave_the_net_amount_available(chain: Chain, shop: Merchant) -> None:
    intent = paid_in_parts(chain, shop, [50, 50, 999_900])
    details = intent["payment_details"]
    assert (details["tx_fee"]["amount"], details["net_amount"]["amount"]) == ("0.01", "0.99")
    assert available(shop, USDT) == "0.99"


def test_parts_whose_fees_round_down_one_by_one_leave_the_net_amount_available(chain: Chain, shop: Merchant) -> None:
    intent = paid_in_parts(chain, shop, [49] * 10 + [999_510])
    details = intent["payment_details"]
    assert (details["tx_fee"]["amount"], details["net_amount"]["amount"]) == ("0.01", "0.99")
    assert available(shop, USDT) == "0.99"
