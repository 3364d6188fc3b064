"""Every network fee the treasury pays is in the ledger (issue 14): after a token refund (gas in ETH) and after a
refund whose nonce went to our cancel, `paygate treasury reconcile` finds the chain holding what the ledger says; and
funds moved out of the treasury behind paygate's back (signed with the treasury's key) are reported as exactly that
drift. The treasury's money here arrives only through payments swept into it, so the ledger knows all of it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from eth_account import Account as EthAccount

from server.rails.evm.derivation import EvmKeys
from tests.chain import Chain
from tests.e2e.refunds.support import created, finished, manual_mining, paid_intent, rpc, wait_sent
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.test_reconcile import reconcile
from tests.e2e.treasury.test_sweeps import eth, sweeps, wait_sweeps
from tests.harness import Service

EXTRA_ENV = {"PAYGATE_REFUND_STUCK_SECONDS": "4"}
OUTSIDER = "0x" + "5a" * 20


def drifted_at(report: dict[str, Any], shop: Merchant) -> list[dict[str, Any]]:
    """The drifted places of this merchant: its treasury and the deposit addresses its sweeps emptied."""
    places = {shop.treasury.lower()} | {s["source_address"].lower() for s in sweeps(shop)}
    return [d for d in report["drifted"] if d["address"] in places]


def eth_in_treasury(chain: Chain, shop: Merchant) -> None:
    """0.01 ETH paid and swept into the treasury: the ledger knows every wei of it."""
    paid_intent(chain, shop, "ETH-ETH-TEST", "30")
    wait_sweeps(chain, shop, 1)


def test_a_token_refund_leaves_no_drift_at_the_treasury(chain: Chain, shop: Merchant, paygate: Service) -> None:
    eth_in_treasury(chain, shop)
    intent = paid_intent(chain, shop, "USDT-ETH-TEST", "10.50")
    wait_sweeps(chain, shop, 2)  # its gas top-up comes from the treasury's swept ETH
    done = finished(chain, shop, created(shop, intent["id"], "2")["id"])
    assert done["status"] == "Success", done
    _, report = reconcile(paygate)
    assert drifted_at(report, shop) == [], report


def test_a_cancelled_refund_leaves_no_drift_at_the_treasury(chain: Chain, shop: Merchant, paygate: Service) -> None:
    eth_in_treasury(chain, shop)
    intent = paid_intent(chain, shop, "ETH-ETH-TEST", "15")
    wait_sweeps(chain, shop, 2)
    low = 10**15  # less than the refund, enough for the gas of a cancel
    with manual_mining(chain):
        rf = created(shop, intent["id"], "0.003")
        rpc(chain, "anvil_dropTransaction", wait_sent(chain, shop, rf["id"])[0]["tx_hash"])
        held = eth(chain, shop.treasury)
        rpc(chain, "anvil_setBalance", shop.treasury, hex(low))
    done = finished(chain, shop, rf["id"])
    assert (done["status"], done["failure_reason"]) == ("Failed", "insufficient_funds"), done
    # What the test took away, given back: all the treasury lost on its own is the cancel's gas.
    rpc(chain, "anvil_setBalance", shop.treasury, hex(eth(chain, shop.treasury) + held - low))
    _, report = reconcile(paygate)
    assert drifted_at(report, shop) == [], report


def treasury_key(paygate: Service, shop: Merchant) -> bytes:
    mnemonic = paygate.env["PAYGATE_WALLET_TEST_MNEMONIC"]
    keys = EvmKeys()
    for account in range(200):
        if keys.treasury_address(mnemonic, account) == shop.treasury.lower():
            return keys.treasury_key(mnemonic, account)
    raise AssertionError("no account of the test wallet has this treasury")


def test_funds_moved_out_of_the_treasury_behind_paygates_back_are_reported_as_that_drift(
        chain: Chain, shop: Merchant, paygate: Service) -> None:
    eth_in_treasury(chain, shop)
    _, report = reconcile(paygate)
    assert drifted_at(report, shop) == [], report
    w3 = chain.w3
    sender = EthAccount.from_key(treasury_key(paygate, shop))
    assert sender.address.lower() == shop.treasury.lower()
    signed = sender.sign_transaction({
        "to": w3.to_checksum_address(OUTSIDER), "value": 12345 * 10**9, "gas": 21000, "chainId": w3.eth.chain_id,
        "nonce": w3.eth.get_transaction_count(sender.address), "maxFeePerGas": 2 * 10**9,
        "maxPriorityFeePerGas": 10**9})
    receipt = w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(signed.raw_transaction))
    gone = 12345 * 10**9 + int(receipt["gasUsed"]) * int(receipt["effectiveGasPrice"])
    status, report = reconcile(paygate)
    assert status == 3, report
    mine = [(d["asset_id"], d["role"], Decimal(d["drift"])) for d in drifted_at(report, shop)]
    assert mine == [("ETH-ETH-TEST", "treasury", -Decimal(gone).scaleb(-18))], report
