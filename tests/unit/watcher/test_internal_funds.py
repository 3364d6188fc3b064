"""The balance audit's pure parts (server/watcher/internal.py, server/rails/evm/scanner.py): which traced calls moved
coin to a watched address, and what an unexplained balance is recorded as (DESIGN §16)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from server.catalogue.catalogue import Asset
from server.chains.models import ChainTransfer, TransferStatus
from server.rails.base import SeenTransfer
from server.rails.evm.scanner import _internal
from server.watcher.internal import _explain

A = "0x" + "aa" * 20
B = "0x" + "bb" * 20
SAFE = "0x" + "5a" * 20
ETH = Asset(id="ETH-ETH-TEST", display_name="ETH", coin="ETH", is_fiat=False, decimals=18, payable=True,
            network="ETH-TEST")
INTERNAL = -1_000_000  # the first internal transfer of a transaction is at -1,000,001
BLOCK, BLOCK_HASH = 40, "0x" + "cd" * 32


def _call(tx: str, path: list[int], to: str, wei: int, *, call_type: str = "call", error: str = "",
          position: int = 0) -> dict[str, Any]:
    trace: dict[str, Any] = {
        "type": "call", "transactionHash": tx, "traceAddress": path, "blockNumber": BLOCK, "blockHash": BLOCK_HASH,
        "transactionPosition": position,
        "action": {"callType": call_type, "from": SAFE, "to": to, "value": hex(wei)}}
    if error:
        trace["error"] = error
    return trace


def _seen(tx: str, n: int, to: str, wei: int) -> SeenTransfer:
    return SeenTransfer(tx_hash=tx, log_index=INTERNAL - n, block_number=BLOCK, block_hash=BLOCK_HASH,
                        from_address=SAFE, to_address=to, asset_id=ETH.id, amount_base=wei, decimals=18)


def _row(t: SeenTransfer, status: str = TransferStatus.CONFIRMED) -> ChainTransfer:
    return ChainTransfer(id="tx_1", network="ETH-TEST", tx_hash=t.tx_hash, log_index=t.log_index,
                         block_number=t.block_number, block_hash=t.block_hash, from_address=t.from_address,
                         to_address=t.to_address, asset_id=t.asset_id, amount_base=Decimal(t.amount_base),
                         decimals=18, owner_id="ch_1", status=status, created_at=1, updated_at=1)


def test_a_nested_call_with_value_to_a_watched_address_is_an_internal_transfer() -> None:
    traces = [_call("0x01", [], SAFE, 7), _call("0x01", [0], A, 5), _call("0x01", [1], B, 2)]
    assert _internal(traces, {A, B}, ETH) == [_seen("0x01", 1, A, 5), _seen("0x01", 2, B, 2)]


def test_a_top_level_transfer_is_left_to_the_block_scan() -> None:
    assert _internal([_call("0x01", [], A, 5)], {A}, ETH) == []


def test_coin_sent_inside_a_failed_frame_did_not_move() -> None:
    traces = [_call("0x01", [], SAFE, 7), _call("0x01", [0], SAFE, 0, error="Reverted"),
              _call("0x01", [0, 0], A, 5), _call("0x01", [1], A, 3)]
    assert _internal(traces, {A}, ETH) == [_seen("0x01", 1, A, 3)]


def test_delegatecall_and_staticcall_move_no_coin() -> None:
    traces = [_call("0x01", [0], A, 5, call_type="delegatecall"), _call("0x01", [1], A, 5, call_type="staticcall")]
    assert _internal(traces, {A}, ETH) == []


def test_a_selfdestruct_to_a_watched_address_is_an_internal_transfer() -> None:
    traces = [{"type": "suicide", "transactionHash": "0x02", "traceAddress": [0], "blockNumber": BLOCK,
               "blockHash": BLOCK_HASH, "action": {"address": SAFE, "refundAddress": A, "balance": hex(9)}}]
    assert _internal(traces, {A}, ETH) == [_seen("0x02", 1, A, 9)]


def test_traced_transfers_explain_the_balance_and_nothing_is_left() -> None:
    assert _explain(A, 5, [_seen("0x01", 1, A, 5)], {}, ETH, BLOCK, BLOCK_HASH) == [_seen("0x01", 1, A, 5)]


def test_without_a_trace_the_whole_difference_is_one_transfer_with_no_transaction() -> None:
    [found] = _explain(A, 5, [], {}, ETH, BLOCK, BLOCK_HASH)
    assert (found.tx_hash, found.log_index, found.amount_base) == (f"balance:40:cdcdcdcdcd:{A}", INTERNAL - 1, 5)
    assert (found.block_number, found.block_hash, found.from_address) == (BLOCK, BLOCK_HASH, "")


def test_a_trace_naming_funds_already_recorded_adds_nothing() -> None:
    # A transfer stored already counts in the balance: only what it leaves unexplained is recorded.
    stored = _seen("0x01", 1, A, 5)
    assert _explain(A, 3, [stored, _seen("0x02", 1, A, 3)], {("0x01", INTERNAL - 1): _row(stored)}, ETH, BLOCK,
                    BLOCK_HASH) == [_seen("0x02", 1, A, 3)]


def test_traced_transfers_beyond_the_unexplained_balance_are_not_recorded() -> None:
    # Funds recorded earlier without their transaction, named by a trace later: the balance explains them already.
    assert _explain(A, 2, [_seen("0x01", 1, A, 5), _seen("0x02", 1, A, 2)], {}, ETH, BLOCK, BLOCK_HASH) == \
        [_seen("0x02", 1, A, 2)]


def test_a_reverted_internal_transfer_found_again_is_recorded_again() -> None:
    gone = _seen("0x01", 1, A, 5)
    assert _explain(A, 5, [gone], {("0x01", INTERNAL - 1): _row(gone, TransferStatus.REVERTED)}, ETH, BLOCK,
                    BLOCK_HASH) == [gone]
