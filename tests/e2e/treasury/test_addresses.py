"""Payout addresses (`/v1/addresses`, DESIGN §15, §16) on Anvil: AML screening, the micro-deposit from the treasury,
its verification (three tries, then an approver), list, retrieve, alias, delete. The signature proof:
test_address_proof.py."""

from __future__ import annotations

import secrets
import time
from decimal import Decimal
from typing import Any

import httpx
from eth_account import Account
from eth_account.messages import encode_defunct
from eth_account.signers.local import LocalAccount

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.refunds.support import FUNDER, fund_treasury
from tests.e2e.treasury.conftest import DENIED, Merchant
from tests.e2e.treasury.test_sweeps import eth
from tests.harness import Service

WAIT_SECONDS = 60


def fresh_address() -> str:
    return "0x" + secrets.token_hex(20)


def create(shop: Merchant, address: str, **fields: Any) -> dict[str, Any]:
    return ok(shop.api.post("/v1/addresses", json={"network": "ETH-TEST", "address": address, **fields}))  # type: ignore[no-any-return]


def wallet() -> LocalAccount:
    """A wallet whose key the test holds: the merchant's, proving control by signing."""
    return Account.create()


def sign(account: LocalAccount, message: str) -> str:
    """`message` signed as a wallet's `personal_sign` signs text (EIP-191), as 0x-prefixed hex."""
    return "0x" + bytes(account.sign_message(encode_defunct(text=message)).signature).hex()


def prove(api: httpx.Client, made: dict[str, Any], account: LocalAccount) -> httpx.Response:
    """The answer to `POST /v1/addresses/{id}/verify` with `account`'s signature of the address's message."""
    return api.post(f"/v1/addresses/{made['id']}/verify",
                         json={"signature": sign(account, made["verification"]["message"])})


def wait_sent(chain: Chain, shop: Merchant, address_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        seen: dict[str, Any] = ok(shop.api.get(f"/v1/addresses/{address_id}"))
        if seen["verification"]["status"] == "sent":
            return seen
        assert time.monotonic() < deadline, seen
        chain.mine(1)
        time.sleep(0.5)


def test_a_new_address_is_screened_and_waits_for_verification(chain: Chain, shop: Merchant) -> None:
    address = fresh_address()
    made = create(shop, address, alias="Cold wallet")
    assert made["id"].startswith("ma_") and made["merchant_id"] == shop.merchant["merchant_id"]
    assert made["network"] == "ETH-TEST" and made["address"] == chain.w3.to_checksum_address(address)
    assert made["status"] == "pending_verification" and made["alias"] == "Cold wallet"
    v = made["verification"]
    assert v["id"].startswith("mav_") and v["merchant_address_id"] == made["id"]
    assert v["asset_id"] == "ETH-ETH-TEST" and v["tried_times"] == 0 and v["aml_status"] == "approved"
    assert "amount" not in v and "verification_amount" not in made  # the secret is never shown


def test_the_micro_deposit_proves_control_once_an_approver_approves(chain: Chain, shop: Merchant,
                                                                    paygate: Service) -> None:
    # Imported here: both modules import this one's helpers at their top.
    from tests.e2e.treasury.payout_support import available
    from tests.e2e.treasury.test_payout_approval import approver
    from tests.e2e.treasury.test_record_funding import ETH, record

    funding = chain.send_eth(FUNDER, shop.treasury, 10**17)  # by hand: the merchant has no available ETH
    before = ok(shop.api.get("/v1/stats/balance"))
    address = fresh_address()
    made = create(shop, address)
    wait_sent(chain, shop, made["id"])
    received = Decimal(eth(chain, address)).scaleb(-18)
    assert Decimal("0.0000001") <= received < Decimal("0.000001")
    off_by_one_unit = format(received + Decimal("1e-10"), "f")  # plain digits: an exponent is refused (§14)
    fails(shop.api.post(f"/v1/addresses/{made['id']}/verify", json={"amount": off_by_one_unit}),
          400, "verification_amount_invalid", "amount")
    wrong = ok(shop.api.get(f"/v1/addresses/{made['id']}"))
    assert wrong["verification"]["tried_times"] == 1 and wrong["status"] == "pending_verification"
    matched = ok(shop.api.post(f"/v1/addresses/{made['id']}/verify", json={"amount": format(received, "f")}))
    # The amount is a public transfer anyone can read (DESIGN §16): it proves nothing until an approver vouches.
    assert matched["status"] == "pending_approval" and matched["approval_status"] == "pending"
    assert matched["verification"]["status"] == "verified" and matched["verification"]["method"] == "micro_deposit"
    with approver(paygate, shop) as four_eyes:
        decided = ok(four_eyes.post(f"/v1/approval/{made['id']}/approve", json={"comment": "my cold wallet"}))
    assert decided["resource_type"] == "payout_address" and decided["approval_status"] == "approved"
    done = decided["payout_address"]
    assert done["status"] == "verified" and done["approval_status"] == "approved"
    assert done["verification"]["verified_at"] > 0
    assert ok(shop.api.get(f"/v1/addresses/{made['id']}"))["status"] == "verified"
    assert before["balance_details"] == []
    # The micro-deposit and its fee were paid from ETH sent by hand: they never take available ETH below zero
    # (the treasury's gas holder owes them), and recording the funding pays them back first, so what is then
    # available is exactly what the treasury holds on chain.
    assert available(shop, ETH) == "0"
    assert record(paygate, funding.tx_hash)[0]["amount"] == "0.1"
    held = Decimal(eth(chain, shop.treasury)).scaleb(-18)
    assert Decimal("0.1") - Decimal("0.001") < held < Decimal("0.1") - received
    assert Decimal(available(shop, ETH)) == held


def test_the_micro_deposit_alone_does_not_verify_the_address(chain: Chain, shop: Merchant) -> None:
    fund_treasury(chain, shop, wei=10**17)
    address = fresh_address()
    made = create(shop, address)
    wait_sent(chain, shop, made["id"])
    amount = format(Decimal(eth(chain, address)).scaleb(-18), "f")
    matched = ok(shop.api.post(f"/v1/addresses/{made['id']}/verify", json={"amount": amount}))
    assert matched["status"] == "pending_approval"
    fails(shop.api.post("/v1/payouts/preview", json={"source_coin": "ETH-ETH-TEST", "source_amount": "0.001",
                                                     "receive_account_id": made["id"]}),
          400, "parameter_invalid", "receive_account_id")
    pending = ok(shop.api.get("/v1/approval/pending"))["details"]
    assert [(d["resource_id"], d["resource_type"]) for d in pending] == [(made["id"], "payout_address")]


def test_an_approver_rejecting_a_micro_deposit_fails_the_address(chain: Chain, shop: Merchant,
                                                                 paygate: Service) -> None:
    from tests.e2e.treasury.test_payout_approval import approver

    fund_treasury(chain, shop, wei=10**17)
    address = fresh_address()
    made = create(shop, address)
    wait_sent(chain, shop, made["id"])
    amount = format(Decimal(eth(chain, address)).scaleb(-18), "f")
    ok(shop.api.post(f"/v1/addresses/{made['id']}/verify", json={"amount": amount}))
    with approver(paygate, shop) as four_eyes:
        decided = ok(four_eyes.post(f"/v1/approval/{made['id']}/reject", json={"comment": "not ours"}))
    assert decided["approval_status"] == "rejected" and decided["payout_address"]["status"] == "failed"
    assert ok(shop.api.get(f"/v1/addresses/{made['id']}"))["status"] == "failed"


def test_three_wrong_amounts_fail_the_address(chain: Chain, shop: Merchant) -> None:
    fund_treasury(chain, shop, wei=10**17)
    made = create(shop, fresh_address())
    wait_sent(chain, shop, made["id"])
    for _ in range(3):
        fails(shop.api.post(f"/v1/addresses/{made['id']}/verify", json={"amount": "0.1"}),
              400, "verification_amount_invalid", "amount")
    seen = ok(shop.api.get(f"/v1/addresses/{made['id']}"))
    assert seen["status"] == "failed" and seen["verification"]["tried_times"] == 3
    fails(shop.api.post(f"/v1/addresses/{made['id']}/verify", json={"amount": "0.1"}), 409,
          "address_verification_failed")


def test_an_address_on_the_deny_list_fails_at_once(shop: Merchant) -> None:
    made = create(shop, DENIED)
    assert made["status"] == "failed" and made["verification"]["aml_status"] == "rejected"


def test_bad_input_is_refused_and_nothing_is_stored(shop: Merchant) -> None:
    fails(shop.api.post("/v1/addresses", json={"network": "ETH-TEST", "address": "0x123"}), 400,
          "parameter_invalid", "address")
    bad_checksum = "0x" + "aB" * 20
    fails(shop.api.post("/v1/addresses", json={"network": "ETH-TEST", "address": bad_checksum}), 400,
          "parameter_invalid", "address")
    fails(shop.api.post("/v1/addresses", json={"network": "NOPE", "address": fresh_address()}), 400,
          "parameter_invalid", "network")
    fails(shop.api.post("/v1/addresses", json={"address": fresh_address()}), 400, "parameter_missing", "network")
    assert ok(shop.api.get("/v1/addresses"))["total"] == 0
    address = fresh_address()
    create(shop, address)
    fails(shop.api.post("/v1/addresses", json={"network": "ETH-TEST", "address": address.upper().replace("0X", "0x")}),
          409, "address_exists", "address")


def test_list_retrieve_alias_and_delete(shop: Merchant) -> None:
    one, two = create(shop, fresh_address()), create(shop, fresh_address(), alias="b")
    listed = ok(shop.api.get("/v1/addresses", params={"page": 0, "page_size": 50, "network": "ETH-TEST"}))
    assert [a["id"] for a in listed["merchant_addresses"]] == [two["id"], one["id"]]
    assert (listed["total"], listed["page"], listed["page_size"]) == (2, 0, 50)
    assert ok(shop.api.get("/v1/addresses", params={"network": "POLYGON-TEST"}))["merchant_addresses"] == []
    fails(shop.api.get("/v1/addresses", params={"page_size": 51}), 400, "parameter_invalid", "page_size")
    renamed = ok(shop.api.post(f"/v1/addresses/{one['id']}", json={"alias": "Exchange"}))
    assert renamed["alias"] == "Exchange" and ok(shop.api.get(f"/v1/addresses/{one['id']}"))["alias"] == "Exchange"
    ok(shop.api.delete(f"/v1/addresses/{one['id']}"))
    fails(shop.api.get(f"/v1/addresses/{one['id']}"), 404, "address_not_found")
    assert [a["id"] for a in ok(shop.api.get("/v1/addresses"))["merchant_addresses"]] == [two["id"]]
    fails(shop.api.get(f"/v1/addresses/{two['id']}", auth=(shop.merchant["live"]["secret_key"], "")), 404,
          "address_not_found")
