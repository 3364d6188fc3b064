"""Treasury payouts of LTC through /v1 on a real litecoind -regtest (issue 34, DESIGN §15, §16, §18): a payout address
of a wallet that cannot sign is proven by the micro-deposit it received (drawn above the dust limit, in LTC's own 8
decimals) and an approver; a payout to it arrives with amount - network_fee and moves the balance by the amount; an
address that is not an LTC-TEST address is refused, naming the field, and creates nothing."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx
import pytest
from embit import base58, bech32

from tests.conftest import fails, ok
from tests.e2e.paid_on_utxo.test_refunds_in_ltc import ltc_treasury, merchant_id, paid, received
from tests.e2e.paid_on_utxo.test_sweeps_in_ltc import wait_swept
from tests.harness import TLS, Service
from tests.harness import paygate as cli
from tests.litecoin import Litecoin

LTC = "LTC-LTC-TEST"
NETWORK = "LTC-TEST"
WAIT_SECONDS = 90
DUST_P2WPKH = Decimal("0.00002940")  # 98 vB at Litecoin Core's dust relay fee, 30 000 litoshi per 1000 vB


def available(shop: httpx.Client, asset_id: str = LTC) -> Decimal:
    details = ok(shop.get("/v1/stats/balance"))["balance_details"]
    return Decimal(next((d["available_balance"] for d in details if d["currency"] == asset_id), "0"))


def approver(paygate: Service, shop: httpx.Client) -> httpx.Client:
    done = cli(paygate.env, paygate.workdir, "merchants", "keys", "create", "--merchant", merchant_id(shop),
               "--mode", "test", "--role", "approver", "--json")
    assert done.returncode == 0, done.stderr
    return httpx.Client(base_url=str(shop.base_url), auth=(json.loads(done.stdout)["secret_key"], ""), timeout=60,
                        verify=TLS)


def mined_until(litecoin: Litecoin, read: Callable[[], dict[str, Any]],
                check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Mines a block every pass, as a live network would, until `check` holds of what `read` answers."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        seen = read()
        if check(seen):
            return seen
        assert time.monotonic() < deadline, f"gave up waiting; last seen: {seen}"
        litecoin.mine(1)
        time.sleep(1)


def swept_in(litecoin: Litecoin, shop: httpx.Client) -> Decimal:
    """One LTC payment paid and swept into the treasury: the merchant's available LTC there."""
    paid(litecoin, shop)
    wait_swept(litecoin, shop, 1)
    return available(shop)


def add(shop: httpx.Client, address: str) -> dict[str, Any]:
    return ok(shop.post("/v1/addresses", json={"network": NETWORK, "address": address}))  # type: ignore[no-any-return]


def micro_deposit_sent(litecoin: Litecoin, shop: httpx.Client, made: dict[str, Any]) -> dict[str, Any]:
    return mined_until(litecoin, lambda: ok(shop.get(f"/v1/addresses/{made['id']}")),
                       lambda a: a["verification"]["status"] == "sent")


def verified_ltc_address(litecoin: Litecoin, paygate: Service, shop: httpx.Client) -> dict[str, Any]:
    """A litecoind wallet address proven by the micro-deposit it received, then approved."""
    made = add(shop, litecoin.wallet("getnewaddress", "", "bech32"))
    micro_deposit_sent(litecoin, shop, made)
    amount = format(received(litecoin, made["address"]), "f")
    ok(shop.post(f"/v1/addresses/{made['id']}/verify", json={"amount": amount}))
    with approver(paygate, shop) as four_eyes:
        ok(four_eyes.post(f"/v1/approval/{made['id']}/approve", json={"comment": "my litecoin wallet"}))
    done: dict[str, Any] = ok(shop.get(f"/v1/addresses/{made['id']}"))
    assert done["status"] == "verified", done
    return done


def test_the_ltc_micro_deposit_is_above_the_dust_limit_in_ltc_decimals(litecoin: Litecoin, paygate: Service,
                                                                       shop: httpx.Client) -> None:
    # By hand: the micro-deposit and its fee come out of it (the merchant has no available LTC).
    litecoin.pay(ltc_treasury(paygate, merchant_id(shop)), Decimal("0.01"))
    litecoin.mine(1)
    made = add(shop, litecoin.wallet("getnewaddress", "", "bech32"))
    assert made["status"] == "pending_verification" and made["verification"]["asset_id"] == LTC

    micro_deposit_sent(litecoin, shop, made)

    amount = received(litecoin, made["address"])
    assert DUST_P2WPKH <= amount < DUST_P2WPKH + Decimal("0.00009000")
    assert amount == amount.quantize(Decimal("1e-8"))


def test_an_ltc_address_is_proven_by_the_amount_received_and_an_approver(litecoin: Litecoin, paygate: Service,
                                                                         shop: httpx.Client) -> None:
    litecoin.pay(ltc_treasury(paygate, merchant_id(shop)), Decimal("0.01"))
    litecoin.mine(1)
    made = add(shop, litecoin.wallet("getnewaddress", "", "bech32"))
    micro_deposit_sent(litecoin, shop, made)
    amount = received(litecoin, made["address"])
    fails(shop.post(f"/v1/addresses/{made['id']}/verify", json={"amount": format(amount + Decimal("1e-8"), "f")}),
          400, "verification_amount_invalid", "amount")

    matched = ok(shop.post(f"/v1/addresses/{made['id']}/verify", json={"amount": format(amount, "f")}))
    assert matched["status"] == "pending_approval" and matched["verification"]["method"] == "micro_deposit"
    with approver(paygate, shop) as four_eyes:
        decided = ok(four_eyes.post(f"/v1/approval/{made['id']}/approve", json={"comment": "my litecoin wallet"}))

    assert decided["payout_address"]["status"] == "verified"
    assert ok(shop.get(f"/v1/addresses/{made['id']}"))["status"] == "verified"


def test_an_ltc_payout_arrives_with_amount_less_network_fee_and_moves_the_balance_by_the_amount(
        litecoin: Litecoin, paygate: Service, shop: httpx.Client) -> None:
    swept_in(litecoin, shop)
    to = verified_ltc_address(litecoin, paygate, shop)
    micro = received(litecoin, to["address"])
    before = available(shop)
    body = {"source_coin": LTC, "source_amount": "0.05", "receive_account_id": to["id"]}
    preview = ok(shop.post("/v1/payouts/preview", json=body))
    assert preview["payment_network_fee_asset_id"] == LTC and Decimal(preview["payment_network_fee"]) > 0
    assert Decimal(preview["payment_net_amount"]) == Decimal("0.05") - Decimal(preview["payment_network_fee"])

    made = ok(shop.post("/v1/payouts", json=body))
    if made["status"] == "pending":  # four eyes
        with approver(paygate, shop) as four_eyes:
            ok(four_eyes.post(f"/v1/approval/{made['id']}/approve", json={}))
    done = mined_until(litecoin, lambda: ok(shop.get(f"/v1/payouts/{made['id']}")),
                       lambda p: p["status"] in ("paid", "failed"))

    assert done["status"] == "paid" and len(done["transactions"]) == 1, done
    fee = Decimal(done["payment_network_fee"])
    assert Decimal(0) < fee < Decimal("0.001")
    assert received(litecoin, to["address"]) - micro == Decimal("0.05") - fee
    assert Decimal(done["payment_net_amount"]) == Decimal("0.05") - fee
    assert litecoin.call("getrawtransaction", done["transactions"][0]["tx_hash"], True)["confirmations"] >= 1
    assert before - available(shop) == Decimal("0.05")


def _other_network_bech32(litecoin: Litecoin) -> str:
    ours = litecoin.wallet("getnewaddress", "", "bech32")
    version, program = bech32.decode("rltc", ours)
    return str(bech32.encode("ltc", version, program))  # the same key's address on Litecoin mainnet


def _base58_one_case_changed(litecoin: Litecoin) -> str:
    ours = litecoin.wallet("getnewaddress", "", "legacy")
    at = next(i for i, c in enumerate(ours) if i > 0 and c.swapcase() != c and c.swapcase() in base58.B58_DIGITS)
    return ours[:at] + ours[at].swapcase() + ours[at + 1:]


HOSTILE: dict[str, Callable[[Litecoin], str]] = {
    "evm_0x": lambda _: "0x" + "ab" * 20,
    "bech32_of_litecoin_mainnet": _other_network_bech32,
    "bech32_of_bitcoin_regtest": lambda node: str(bech32.encode(
        "bcrt", *bech32.decode("rltc", node.wallet("getnewaddress", "", "bech32")))),
    "base58_with_one_case_changed": _base58_one_case_changed,
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_payout_address_that_is_not_an_ltc_test_address_is_refused_and_nothing_is_created(
        litecoin: Litecoin, shop: httpx.Client, kind: str) -> None:
    address = HOSTILE[kind](litecoin)

    fails(shop.post("/v1/addresses", json={"network": NETWORK, "address": address}), 400, "parameter_invalid",
          "address")

    listed = ok(shop.get("/v1/addresses", params={"network": NETWORK}))
    assert listed["merchant_addresses"] == [] and listed["total"] == 0
