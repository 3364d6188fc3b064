"""A refund spends the merchant's available money, never the rest of what its treasury holds on chain.

The treasury's coin is not all the merchant's to give: it holds paygate's processing fees until they are swept,
amounts locked for payouts, and coin sent there by hand that nobody recorded. A refund checked only against the
chain's balance could pay a customer out of any of them. So a refund is refused with `insufficient_funds` when it is
more than the merchant's available balance in the asset (the ledger's), as a payout is, and two refunds at once
cannot both take the last of it. Recording a funding (`paygate treasury record-funding`) is how a merchant makes room
for more, such as a full refund that includes the processing fee paygate kept."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import grpc
from paygate.v1 import refunds_pb2, refunds_pb2_grpc

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.grpc.support import fails as grpc_fails
from tests.e2e.refunds.support import FUNDER, created, fund_treasury, paid_intent, refund
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.payout_support import available, verified_address
from tests.e2e.treasury.test_record_funding import record
from tests.harness import Service

USDT = "USDT-ETH-TEST"
# Coin at the treasury that the ledger never saw as the merchant's: the chain's balance alone would allow any refund.
HAND_FUNDED = 50_000_000


def refunds_of(shop: Merchant, intent_id: str) -> int:
    listed = ok(shop.api.get("/v1/refunds", params={"payment_intent": intent_id}))
    return int(listed["total"])


def test_a_refund_above_the_available_balance_is_refused_though_the_treasury_holds_the_coin(
        chain: Chain, shop: Merchant) -> None:
    intent = paid_intent(chain, shop, USDT, "10.50")  # 1 % processing fee: 10.395 available
    fund_treasury(chain, shop, usdt=HAND_FUNDED)
    refused = fails(refund(shop, intent["id"], "10.50"), 400, "insufficient_funds")
    assert refused["msg"].startswith("amount: ") and "10.395" in refused["msg"]
    assert refunds_of(shop, intent["id"]) == 0
    assert available(shop, USDT) == "10.395"


def test_a_refund_of_exactly_the_available_balance_is_accepted_and_locks_it(chain: Chain, shop: Merchant) -> None:
    intent = paid_intent(chain, shop, USDT, "10.50")
    fund_treasury(chain, shop, usdt=HAND_FUNDED)
    assert created(shop, intent["id"], "10.395")["status"] == "Pending"
    assert available(shop, USDT) == "0"


def test_two_refunds_at_once_never_take_the_available_balance_below_zero(chain: Chain, shop: Merchant) -> None:
    first, second = paid_intent(chain, shop, USDT, "10.50"), paid_intent(chain, shop, USDT, "10.50")
    fund_treasury(chain, shop, usdt=HAND_FUNDED)
    assert available(shop, USDT) == "20.79"
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda i: refund(shop, i["id"], "10.50"), (first, second)))
    assert sorted(a.status_code for a in answers) == [200, 400]
    assert [a.json()["error_code"] for a in answers if a.status_code == 400] == ["insufficient_funds"]
    assert refunds_of(shop, first["id"]) + refunds_of(shop, second["id"]) == 1
    assert available(shop, USDT) == "10.29"


def test_a_refund_and_a_payout_at_once_never_both_take_the_last_of_the_available_balance(
        chain: Chain, shop: Merchant) -> None:
    intent = paid_intent(chain, shop, USDT, "10.50")
    to = verified_address(chain, shop)
    fund_treasury(chain, shop, usdt=HAND_FUNDED)
    payout = {"source_coin": USDT, "source_amount": "10.395", "receive_account_id": to["id"]}
    with ThreadPoolExecutor(2) as pool:
        asked = [pool.submit(shop.api.post, "/v1/payouts", json=payout),
                 pool.submit(refund, shop, intent["id"], "10.395")]
        answers = [a.result() for a in asked]
    assert sorted(a.status_code for a in answers) == [200, 400], [a.text for a in answers]
    assert [a.json()["error_code"] for a in answers if a.status_code == 400] == ["insufficient_funds"]
    assert available(shop, USDT) == "0"


def test_a_recorded_funding_makes_room_for_a_full_refund_including_the_processing_fee(
        chain: Chain, shop: Merchant, paygate: Service) -> None:
    intent = paid_intent(chain, shop, USDT, "10.50")
    fund_treasury(chain, shop)  # the treasury's gas
    funding = chain.send_token("USDT", FUNDER, shop.treasury, 11_000_000)  # the chain holds the refund from here on
    chain.mine(3)
    fails(refund(shop, intent["id"], "10.50"), 400, "insufficient_funds")
    [posted] = record(paygate, funding.tx_hash)
    assert (posted["asset_id"], posted["amount"]) == (USDT, "11")
    assert created(shop, intent["id"], "10.50")["status"] == "Pending"
    assert available(shop, USDT) == "10.895"


def test_over_grpc_a_refund_above_the_available_balance_is_invalid_argument_insufficient_funds(
        chain: Chain, shop: Merchant, paygate: Service) -> None:
    intent = paid_intent(chain, shop, USDT, "10.50")
    fund_treasury(chain, shop, usdt=HAND_FUNDED)
    auth = [("authorization", f"Bearer {shop.merchant['test']['secret_key']}")]
    with grpc.insecure_channel(paygate.grpc_addr) as channel:
        refunds = refunds_pb2_grpc.RefundServiceStub(channel)
        err = grpc_fails(lambda: refunds.CreateRefund(
            refunds_pb2.CreateRefundRequest(payment_intent_id=intent["id"], amount="10.50"), metadata=auth),
            grpc.StatusCode.INVALID_ARGUMENT, "insufficient_funds", field="amount")
    assert "10.395" in (err.details() or "")  # type: ignore[attr-defined]
    assert refunds_of(shop, intent["id"]) == 0
    assert available(shop, USDT) == "10.395"
