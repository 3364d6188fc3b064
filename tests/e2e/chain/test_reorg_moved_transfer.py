"""A transfer whose transaction a re-organisation puts back at another log index (another transaction's log now comes
first in its block), or in another block, is the same transfer: one row, its id and first-seen time kept, never
counted twice, not even between two batches of one pass."""

from __future__ import annotations

import hashlib
import json
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from web3.contract import Contract

from server.chains.hooks import TransferListener
from server.chains.models import ChainTransfer
from server.rails.evm import solidity
from server.watcher.watcher import REORG_MARGIN
from tests.chain import Chain
from tests.e2e.chain.conftest import DENIED_SENDER, Heard, recorder
from tests.e2e.chain.rig import Rig, deny_list_screening

PAYER, OTHER, DEPLOYER = 1, 4, 6

# Pays two recipients in one transaction: two Transfer logs, one after the other.
SPLIT_SOURCE = """
pragma solidity ^0.8.20;
interface Token { function transferFrom(address from, address to, uint256 value) external returns (bool); }
contract Split {
    function pay(address token, address a, uint256 x, address b, uint256 y) external {
        require(Token(token).transferFrom(msg.sender, a, x) && Token(token).transferFrom(msg.sender, b, y));
    }
}
"""


def live_rows_counter(counts: list[int]) -> TransferListener:
    """At every change the watcher tells, how many rows of that transaction count (not reverted): what a payment's
    total would add up at that moment."""
    async def listener(session: AsyncSession, t: ChainTransfer, previous_status: str, previous_aml: str) -> None:
        rows = (await session.exec(select(ChainTransfer).where(
            ChainTransfer.tx_hash == t.tx_hash, col(ChainTransfer.status) != "reverted"))).all()
        counts.append(len(rows))
    return listener


@pytest.fixture
def live_counts() -> list[int]:
    return []


@pytest.fixture
def rig(chain: Chain, database_url: str, heard: list[Heard], live_counts: list[int]) -> Iterator[Rig]:
    screening = deny_list_screening(chain.accounts[DENIED_SENDER].address)
    r = Rig(database_url, chain.networks_file, screening, listeners=[recorder(heard), live_rows_counter(live_counts)])
    yield r
    r.close()


def other_token_transfer(chain: Chain) -> str:
    """A signed USDC transfer between two unwatched accounts: put first in a block, its log takes index 0."""
    call = chain.tokens["USDC"].functions.transfer(chain.accounts[5].address, 7)
    raw = chain._sign(OTHER, call.build_transaction({"from": chain.accounts[OTHER].address, "gas": 100_000}))
    return "0x" + raw.hex()


def reorg(chain: Chain, depth: int, *raw_txs: str) -> None:
    """Replaces the last `depth` blocks; the transactions go, in this order, into the first new block."""
    reply = chain.w3.provider.make_request("anvil_reorg", [depth, [[raw, 0] for raw in raw_txs]])  # type: ignore[arg-type]
    assert "error" not in reply, reply


def compiled_split() -> dict[str, Any]:
    """SPLIT_SOURCE compiled by solcjs, once per machine and source (kept in the temporary directory)."""
    digest = hashlib.sha256(SPLIT_SOURCE.encode()).hexdigest()[:16]
    cached = Path(tempfile.gettempdir()) / f"paygate-split-{digest}.json"
    if cached.exists():
        return json.loads(cached.read_text())  # type: ignore[no-any-return]
    request = {"language": "Solidity", "sources": {"Split.sol": {"content": SPLIT_SOURCE}},
               "settings": {"evmVersion": "cancun",
                            "outputSelection": {"*": {"Split": ["abi", "evm.bytecode.object"]}}}}
    done = subprocess.run([solidity.solcjs(), "--standard-json"], input=json.dumps(request), capture_output=True,
                          text=True, timeout=120, check=True)
    contract = json.loads(done.stdout[done.stdout.find("{"):])["contracts"]["Split.sol"]["Split"]
    compiled = {"abi": contract["abi"], "bytecode": "0x" + contract["evm"]["bytecode"]["object"]}
    partial = cached.with_suffix(".tmp")
    partial.write_text(json.dumps(compiled))
    partial.replace(cached)
    return compiled


@pytest.fixture(scope="module")
def split(chain: Chain) -> Contract:
    """The split contract on the dev chain, allowed to move the payer's USDT."""
    compiled = compiled_split()
    factory = chain.w3.eth.contract(abi=compiled["abi"], bytecode=compiled["bytecode"])
    deployed = chain.send_raw(chain._sign(DEPLOYER, factory.constructor().build_transaction(
        {"from": chain.accounts[DEPLOYER].address, "gas": 1_000_000})))
    address = chain.w3.eth.get_transaction_receipt(deployed.tx_hash)["contractAddress"]  # type: ignore[arg-type]
    contract = chain.w3.eth.contract(address=address, abi=compiled["abi"])
    approve = chain.tokens["USDT"].functions.approve(address, 2**256 - 1)
    chain.send_raw(chain._sign(PAYER, approve.build_transaction({"from": chain.accounts[PAYER].address,
                                                                 "gas": 100_000})))
    return contract


def log_index_of(chain: Chain, tx_hash: str) -> tuple[int, int]:
    receipt = chain.w3.eth.get_transaction_receipt(tx_hash)  # type: ignore[arg-type]
    [log] = receipt["logs"]
    return receipt["blockNumber"], log["logIndex"]


def test_a_transfer_re_mined_at_another_log_index_stays_one_transfer(chain, rig, heard):
    address = rig.watch(from_block=chain.head())
    sent = chain.send_token("USDT", PAYER, address, 2_000_000)
    rig.run_pass()
    first = rig.transfer(sent.tx_hash)
    reorg(chain, 1, other_token_transfer(chain), "0x" + sent.raw.hex())
    block, log_index = log_index_of(chain, sent.tx_hash)
    assert (block, log_index) == (first.block_number, first.log_index + 1)  # the same height, shifted by one log
    rig.run_pass()
    t = rig.transfer(sent.tx_hash)  # one row for the transaction
    assert (t.id, t.created_at, t.status, t.log_index) == (first.id, first.created_at, "submitted", log_index)
    assert t.block_hash == chain.w3.eth.get_block(block)["hash"].to_0x_hex()
    assert [(h.previous_status, h.status) for h in heard] == [("", "submitted"), ("submitted", "reverted"),
                                                              ("reverted", "submitted")]


def test_a_transfer_re_mined_in_an_earlier_block_of_another_batch_is_never_counted_twice(chain, rig, live_counts):
    # Batches that end just below the old block: the rescan meets the transaction in its new block one batch before
    # it reaches the block it was recorded in (checked below on the pass's report).
    batch = rig.network.confirmations + REORG_MARGIN - 1
    chain.mine(2 * batch)  # a chain long enough that the rescan does not start at block 0
    watcher = rig.new_watcher(blocks_per_batch=batch)
    address = rig.watch(from_block=chain.head())
    chain.mine(1)
    sent = chain.send_token("USDT", PAYER, address, 3_000_000)
    rig.run_pass(watcher)
    first = rig.transfer(sent.tx_hash)
    reorg(chain, 2, other_token_transfer(chain), "0x" + sent.raw.hex())
    block, log_index = log_index_of(chain, sent.tx_hash)
    assert (block, log_index) == (first.block_number - 1, first.log_index + 1)
    report = rig.run_pass(watcher)
    assert report.rewound and report.scanned_from + batch - 1 == block  # the new block ends the first batch
    t = rig.transfer(sent.tx_hash)
    assert (t.id, t.status, t.block_number, t.log_index) == (first.id, "confirming", block, log_index)
    assert max(live_counts) == 1, live_counts


def test_two_transfers_of_one_transaction_moved_one_log_later_keep_their_rows(chain, rig, heard, split):
    a, b = rig.watch(from_block=chain.head()), rig.watch(from_block=chain.head())
    usdt = chain.tokens["USDT"].address
    call = split.functions.pay(usdt, chain.w3.to_checksum_address(a), 1_000_000, chain.w3.to_checksum_address(b),
                               2_000_000)
    sent = chain.send_raw(chain._sign(PAYER, call.build_transaction({"from": chain.accounts[PAYER].address,
                                                                     "gas": 200_000})))
    rig.run_pass()
    before = {t.to_address: t for t in rig.transfers() if t.tx_hash == sent.tx_hash}
    assert before[b].log_index == before[a].log_index + 1
    # Each transfer's new log index is the other's old one: the rows change places without breaking the unique key.
    reorg(chain, 1, other_token_transfer(chain), "0x" + sent.raw.hex())
    rig.run_pass()
    after = {t.to_address: t for t in rig.transfers() if t.tx_hash == sent.tx_hash}
    assert len(rig.transfers(a)) == len(rig.transfers(b)) == 1
    assert {k: (t.id, t.status, t.log_index, t.amount_base) for k, t in after.items()} == {
        a: (before[a].id, "submitted", before[a].log_index + 1, 1_000_000),
        b: (before[b].id, "submitted", before[b].log_index + 1, 2_000_000)}
