"""ETH that reaches a deposit address by a contract call is unexpected funds (DESIGN §16), on a real chain.

A Safe or an exchange's hot wallet pays by calling a contract that sends the coin on (an internal transfer): no
top-level transaction names the deposit address, so the block scan alone never sees it. paygate finds it by the
address's balance moving without a known transfer and records it as the intent's unexpected funds, with the
transaction that carried it (Anvil answers `trace_filter`): shown through `/v1`, never counted as paid. A direct
payment on the same address still pays, and neither is counted twice.
"""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

import httpx
from eth_account.signers.local import LocalAccount
from web3 import Web3

from tests.chain import Chain, Sent
from tests.conftest import ok
from tests.e2e.paid_on_chain.test_paid_on_chain import (
    PAYER,
    WAIT_SECONDS,
    base_units,
    open_intent,
    transactions,
    wait_for,
)

ETH_PRICED = "3000"  # USD: a quote of exactly 1 ETH at the default 3000 USD per ETH
CONFIRMATIONS = 3  # ETH-TEST's confirmation threshold (server/rails/evm/devchain.py)
# A forwarder, written by hand (no compiler needed): its code CALLs the 32-byte word of calldata as an address with
# all of msg.value and reverts when that call fails.
#   PUSH1 0 (four times: ret, args) CALLVALUE PUSH1 0 CALLDATALOAD GAS CALL ISZERO PUSH1 0x13 JUMPI STOP
#   0x13: JUMPDEST PUSH1 0 DUP1 REVERT
FORWARDER_RUNTIME = "6000600060006000346000355af115601357005b600080fd"
# Creation code: CODECOPY the 24 runtime bytes that follow these 12 and RETURN them.
FORWARDER_INIT = "0x6018600c60003960186000f3" + FORWARDER_RUNTIME


def _send(chain: Chain, sender: LocalAccount, tx: dict[str, Any]) -> Sent:
    tx = {**tx, "from": sender.address, "chainId": chain.dev.chain_id,
          "nonce": chain.w3.eth.get_transaction_count(sender.address, "pending"),
          "maxFeePerGas": 10 * 10**9, "maxPriorityFeePerGas": 10**9}
    return chain.send_raw(bytes(sender.sign_transaction(tx).raw_transaction))


def _forwarder(chain: Chain) -> str:
    sent = _send(chain, chain.accounts[PAYER], {"data": FORWARDER_INIT, "gas": 100_000})
    address = chain.w3.eth.get_transaction_receipt(sent.tx_hash)["contractAddress"]  # type: ignore[arg-type]
    assert address is not None and chain.w3.eth.get_code(address).hex() == FORWARDER_RUNTIME
    return str(address)


def _forward(chain: Chain, forwarder: str, to: str, wei: int) -> Sent:
    """`wei` sent by PAYER to the forwarder, which sends it on to `to` inside the same transaction."""
    data = "0x" + to.lower().removeprefix("0x").rjust(64, "0")
    sent = _send(chain, chain.accounts[PAYER],
                 {"to": Web3.to_checksum_address(forwarder), "value": wei, "data": data, "gas": 100_000})
    assert chain.w3.eth.get_transaction_receipt(sent.tx_hash)["status"] == 1  # type: ignore[arg-type]
    return sent


def _unexpected(intent: dict[str, Any], tx_hash: str) -> list[dict[str, Any]]:
    return [f for f in intent.get("unexpected_funds", []) if f["tx_hash"] == tx_hash]


def _settled(intent: dict[str, Any], tx_hash: str) -> bool:
    """The forwarded funds are recorded, confirmed and screened (as unexpected funds, or wrongly as a payment)."""
    return any(f["status"] == "confirmed" and f["aml_status"] == "approved" for f in _unexpected(intent, tx_hash)) \
        or any(t["tx_hash"] == tx_hash and t["status"] == "confirmed" for t in transactions(intent))


def test_eth_forwarded_by_a_contract_is_unexpected_funds_not_a_payment(chain: Chain, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, "ETH-ETH-TEST", ETH_PRICED)
    assert Decimal(quote["amount"]) == 1
    forwarder = _forwarder(chain)
    sent = _forward(chain, forwarder, quote["deposit_address"], base_units("0.25", 18))
    assert chain.w3.eth.get_balance(Web3.to_checksum_address(quote["deposit_address"])) == base_units("0.25", 18)
    chain.mine(CONFIRMATIONS + 8)
    seen = wait_for(shop, intent_id, lambda i: _settled(i, sent.tx_hash))
    [funds] = seen["unexpected_funds"]
    assert (funds["asset_id"], Decimal(funds["amount"]), funds["tx_hash"]) == ("ETH-ETH-TEST", Decimal("0.25"),
                                                                                sent.tx_hash)
    assert funds["source_address"].lower() == forwarder.lower()  # the contract that sent the coin
    assert funds["charge"] == seen["charges"][0]["id"]
    assert seen["status"] == "RequiresPaymentMethod"  # unchanged: nothing was paid
    assert seen["payment_intent_status"] != "Completed"
    assert Decimal(seen["payment_details"]["amount_captured"]["amount"]) == 0
    assert transactions(seen) == []


def test_a_direct_payment_beside_forwarded_funds_pays_and_nothing_counts_twice(chain: Chain,
                                                                               shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, "ETH-ETH-TEST", ETH_PRICED)
    address = quote["deposit_address"]
    forwarded = _forward(chain, _forwarder(chain), address, base_units("0.1", 18))
    chain.mine(CONFIRMATIONS + 8)
    wait_for(shop, intent_id, lambda i: _settled(i, forwarded.tx_hash))
    paid = chain.send_eth(PAYER, address, base_units("1", 18))
    chain.mine(CONFIRMATIONS + 8)
    seen = wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    # A charge's transactions state amounts in base units (wei); unexpected funds in the asset's units.
    assert [(t["tx_hash"], int(t["amount"])) for t in transactions(seen)] == [(paid.tx_hash, base_units("1", 18))]
    assert Decimal(seen["payment_details"]["amount_captured"]["amount"]) == 1
    chain.mine(CONFIRMATIONS + 8)  # more balance checks, with both transfers known
    again = wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    for view in (seen, again):
        assert [(f["tx_hash"], Decimal(f["amount"])) for f in view["unexpected_funds"]] == \
            [(forwarded.tx_hash, Decimal("0.1"))]
    assert Decimal(again["payment_details"]["amount_captured"]["amount"]) == 1


def _swept(chain: Chain, shop: httpx.Client, address: str) -> dict[str, Any]:
    """The sweep that emptied `address`, once it succeeded (blocks mined meanwhile so that it confirms)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        found = [s for s in ok(shop.get("/v1/sweeps", params={"page_size": 50}))["sweeps"]
                 if s["source_address"].lower() == address.lower() and s["status"] == "succeeded"]
        if found:
            return found[0]  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, "gave up waiting for the sweep"
        chain.mine(1)
        time.sleep(0.5)


def test_eth_forwarded_to_an_address_after_its_sweep_is_still_found(chain: Chain, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, "ETH-ETH-TEST", ETH_PRICED)
    address = quote["deposit_address"]
    chain.send_eth(PAYER, address, base_units("1", 18))
    chain.mine(CONFIRMATIONS)
    wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    _swept(chain, shop, address)  # 1 ETH reaches the default minimum of 1: the address sends it all, fee included
    assert chain.w3.eth.get_balance(Web3.to_checksum_address(address)) == 0
    forwarded = _forward(chain, _forwarder(chain), address, base_units("0.05", 18))
    chain.mine(CONFIRMATIONS + 8)
    seen = wait_for(shop, intent_id, lambda i: _settled(i, forwarded.tx_hash))
    assert [(f["tx_hash"], Decimal(f["amount"])) for f in seen["unexpected_funds"]] == \
        [(forwarded.tx_hash, Decimal("0.05"))]
    assert seen["status"] == "Success"
    assert Decimal(seen["payment_details"]["amount_captured"]["amount"]) == 1
