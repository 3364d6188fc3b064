"""An LTC payment from the node's mempool to its block, a mempool payment replaced before it was mined, and the
screening of every input's sender (issue 34): on a real litecoind -regtest watched by the running scheduler, read
through /v1, on SQLite and PostgreSQL."""

from __future__ import annotations

import time
from decimal import Decimal

import httpx
import pytest

from tests.e2e.paid_on_utxo.conftest import DENIED_WALLET
from tests.e2e.paid_on_utxo.test_paid_in_ltc import (
    QUIET_SECONDS,
    captured,
    intent_of,
    open_intent,
    transactions,
    wait_for,
)
from tests.litecoin import Litecoin

CLEAN_WALLET = "first-input"


@pytest.fixture(scope="module")
def clean_sender(litecoin: Litecoin) -> str:
    """An address on no deny list, of its own wallet, holding coins to pay from."""
    return litecoin.funded_wallet(CLEAN_WALLET, Decimal("5"))


def test_an_ltc_payment_in_the_mempool_is_listed_as_submitted_and_counted_only_once_mined(
        litecoin: Litecoin, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop)
    txid = litecoin.pay(quote["deposit_address"], Decimal(quote["amount"]))
    seen = wait_for(shop, intent_id, lambda i: any(t["tx_hash"] == txid for t in transactions(i)))
    time.sleep(QUIET_SECONDS)  # several passes: an unmined transfer gains no confirmations and stays uncounted
    waiting = intent_of(shop, intent_id)
    [tx] = transactions(waiting)
    assert (tx["tx_hash"], tx["status"], tx["confirmations"]) == (txid, "submitted", 0)
    assert tx["aml_status"] not in ("approved", "rejected")  # never screened while unmined
    assert tx["tx_id"] == transactions(seen)[0]["tx_id"]
    assert captured(waiting) == 0 and waiting["status"] == "Processing"

    litecoin.mine(3)
    paid = wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    [mined] = transactions(paid)
    assert (mined["tx_id"], mined["status"], mined["aml_status"]) == (tx["tx_id"], "confirmed", "approved")
    assert captured(paid) == Decimal("0.13125")


def test_a_mempool_payment_replaced_to_another_address_ends_not_pending_and_is_never_counted(
        litecoin: Litecoin, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop)
    txid = litecoin.pay(quote["deposit_address"], Decimal(quote["amount"]), replaceable=True)
    listed = wait_for(shop, intent_id, lambda i: any(t["tx_hash"] == txid for t in transactions(i)))
    assert transactions(listed)[0]["status"] == "submitted" and listed["status"] == "Processing"

    litecoin.replace(txid, str(litecoin.wallet("getnewaddress", "", "bech32")))
    # The replaced transfer leaves the intent's answer (reverted), and the intent waits for a payment again.
    gone = wait_for(shop, intent_id, lambda i: transactions(i) == [])
    assert gone["status"] == "RequiresPaymentMethod" and captured(gone) == 0
    litecoin.mine(3)
    time.sleep(QUIET_SECONDS)
    after = intent_of(shop, intent_id)
    assert transactions(after) == [] and captured(after) == 0 and after["status"] == "RequiresPaymentMethod"


def test_ltc_whose_second_input_is_from_a_deny_listed_address_is_rejected_and_frozen(
        litecoin: Litecoin, shop: httpx.Client, clean_sender: str, denied_sender: str) -> None:
    intent_id, quote = open_intent(shop)
    litecoin.pay_from_many([(CLEAN_WALLET, clean_sender), (DENIED_WALLET, denied_sender)],
                           quote["deposit_address"], Decimal(quote["amount"]))
    litecoin.mine(3)
    frozen = wait_for(shop, intent_id, lambda i: bool(transactions(i))
                      and transactions(i)[0]["aml_status"] in ("approved", "rejected"))
    [tx] = transactions(frozen)
    assert (tx["status"], tx["aml_status"]) == ("confirmed", "rejected")
    assert tx["source_address"] == clean_sender  # the first input's: the deny-listed sender is the second
    assert denied_sender in tx["aml_info"]
    assert Decimal(str(frozen["payment_details"]["frozen_amount"]["amount"])) == Decimal("0.13125")
    assert captured(frozen) == 0 and frozen["status"] != "Success"
