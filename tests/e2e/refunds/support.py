"""Paying intents on chain and following refunds through the /v1 API."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from web3.exceptions import TransactionNotFound

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.paid_on_chain.test_paid_on_chain import base_units, open_intent, wait_for
from tests.e2e.refunds.conftest import Shop

PAYER = 3
FUNDER = 4
WAIT_SECONDS = 60


def paid_intent(chain: Chain, shop: Shop, asset_id: str = "USDT-ETH-TEST", amount: str = "10.50") -> dict[str, Any]:
    intent_id, quote = open_intent(shop.api, asset_id, amount)
    if asset_id.startswith("ETH-"):
        chain.send_eth(PAYER, quote["deposit_address"], base_units(quote["amount"], quote["decimals"]))
    else:
        chain.send_token(asset_id.split("-")[0], PAYER, quote["deposit_address"],
                         base_units(quote["amount"], quote["decimals"]))
    chain.mine(3)
    return wait_for(shop.api, intent_id, lambda i: i["status"] == "Success")


def another_sale(chain: Chain, shop: Shop, asset_id: str = "USDT-ETH-TEST", amount: str = "1") -> None:
    """Another payment of the merchant's in `asset_id`: available money beyond one intent's. A refund of all an
    intent captured needs it, since the processing fee paygate kept is not the merchant's to give back
    (tests/e2e/treasury/test_refunds_within_available.py)."""
    paid_intent(chain, shop, asset_id, amount)


def fund_treasury(chain: Chain, shop: Shop, *, usdt: int = 0, wei: int = 10**18) -> None:
    chain.send_eth(FUNDER, shop.treasury, wei)
    if usdt:
        chain.send_token("USDT", FUNDER, shop.treasury, usdt)


def refund(shop: Shop, intent_id: str, amount: str, **fields: Any) -> httpx.Response:
    return shop.api.post("/v1/refunds", json={"payment_intent_id": intent_id, "amount": amount, **fields})


def created(shop: Shop, intent_id: str, amount: str, **fields: Any) -> dict[str, Any]:
    return ok(refund(shop, intent_id, amount, **fields))["refunds"][0]  # type: ignore[no-any-return]


def wait_refund(chain: Chain, shop: Shop, refund_id: str, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        seen: dict[str, Any] = ok(shop.api.get(f"/v1/refunds/{refund_id}"))
        if check(seen):
            return seen
        assert time.monotonic() < deadline, f"gave up waiting; last seen: {seen}"
        chain.mine(1)  # confirmations for the refund transaction
        time.sleep(0.5)


def usdt_balance(chain: Chain, address: str) -> int:
    return int(chain.tokens["USDT"].functions.balanceOf(chain.w3.to_checksum_address(address)).call())


def events_of(shop: Shop, object_id: str) -> list[dict[str, Any]]:
    """The object's events, oldest first."""
    events = ok(shop.api.get("/v1/events", params={"page": 0, "page_size": 100}))["events"]
    return [e for e in reversed(events) if e["data"]["object"].get("id") == object_id]


def rpc(chain: Chain, method: str, *params: Any) -> Any:
    """An Anvil cheat code (evm_setAutomine, anvil_setBalance, …); its result."""
    answer = chain.w3.provider.make_request(method, list(params))  # type: ignore[arg-type]
    assert "error" not in answer, answer
    return answer.get("result")


@contextmanager
def manual_mining(chain: Chain) -> Iterator[None]:
    """Transactions wait in the mempool until a block is mined on purpose."""
    rpc(chain, "evm_setAutomine", False)
    try:
        yield
    finally:
        rpc(chain, "evm_setAutomine", True)


def wait_sent(chain: Chain, shop: Shop, refund_id: str, count: int = 1) -> list[dict[str, Any]]:
    """The refund's transactions once it has `count` of them and the node holds each, without mining a block.

    A transaction is stored before it is broadcast (so a crash between the two loses nothing): the refund shows
    its hash a moment before the node knows it."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        seen: dict[str, Any] = ok(shop.api.get(f"/v1/refunds/{refund_id}"))
        if len(seen["transactions"]) >= count and all(_known(chain, t["tx_hash"]) for t in seen["transactions"]):
            return seen["transactions"]  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, f"gave up waiting; last seen: {seen}"
        time.sleep(0.3)


def _known(chain: Chain, tx_hash: str) -> bool:
    try:
        chain.w3.eth.get_transaction(tx_hash)  # type: ignore[arg-type]
    except TransactionNotFound:
        return False
    return True


def finished(chain: Chain, shop: Shop, refund_id: str) -> dict[str, Any]:
    return wait_refund(chain, shop, refund_id, lambda r: r["status"] in ("Success", "Failed"))


def chain_nonce(chain: Chain, address: str) -> int:
    return int(chain.w3.eth.get_transaction_count(chain.w3.to_checksum_address(address)))


def sent_from(chain: Chain, address: str, first_block: int) -> list[dict[str, Any]]:
    """Every transaction `address` sent that was mined from `first_block` on, in chain order."""
    sent: list[dict[str, Any]] = []
    for number in range(first_block, chain.w3.eth.block_number + 1):
        for tx in chain.w3.eth.get_block(number, full_transactions=True)["transactions"]:
            if str(tx["from"]).lower() == address.lower():  # type: ignore[index]
                sent.append(dict(tx))  # type: ignore[arg-type]
    return sent


def assert_mined_once(chain: Chain, treasury: str, first_block: int, start_nonce: int, tx_hashes: list[str]) -> None:
    """What matters of the treasury's nonces when other senders (sweeps' gas top-ups) share them: each of
    `tx_hashes` mined exactly once, and the treasury's nonces since `start_nonce` used once each, none skipped."""
    sent = sent_from(chain, treasury, first_block)
    hashes = [tx["hash"].to_0x_hex() for tx in sent]
    for tx_hash in tx_hashes:
        assert hashes.count(tx_hash) == 1, (tx_hash, hashes)
    assert sorted(int(tx["nonce"]) for tx in sent) == list(range(start_nonce, start_nonce + len(sent)))
    assert chain_nonce(chain, treasury) == start_nonce + len(sent)
