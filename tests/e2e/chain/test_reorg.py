"""Re-organisations: a transfer whose block leaves the chain is `reverted`; mined again, the same row comes back."""

from __future__ import annotations

from tests.e2e.chain.conftest import Heard


def test_a_reorged_transfer_before_confirmation_becomes_reverted(chain, rig, heard):
    address = rig.watch(from_block=chain.head())
    before = chain.snapshot()
    sent = chain.send_token("USDT", 1, address, 1_000_000)
    rig.run_pass()
    chain.revert(before)  # the block with the transfer is gone
    chain.mine(2)  # and a longer chain without it took its place
    report = rig.run_pass()
    assert report.rewound
    assert rig.transfer(sent.tx_hash).status == "reverted"
    assert heard[-1] == Heard(sent.tx_hash, "submitted", "reverted", "", "")


def test_a_reverted_transfer_mined_again_is_recorded_again_in_the_same_row(chain, rig, heard):
    address = rig.watch(from_block=chain.head())
    before = chain.snapshot()
    sent = chain.send_eth(1, address, 10**16)
    rig.run_pass()
    first = rig.transfer(sent.tx_hash)
    chain.revert(before)
    chain.mine(2)
    rig.run_pass()
    again = chain.send_raw(sent.raw)  # the same signed transaction, mined in a new block
    rig.run_pass()
    t = rig.transfer(sent.tx_hash)
    assert again.tx_hash == sent.tx_hash and again.block_number != sent.block_number
    assert (t.id, t.status, t.block_number) == (first.id, "submitted", again.block_number)
    assert [(h.previous_status, h.status) for h in heard] == [("", "submitted"), ("submitted", "reverted"),
                                                              ("reverted", "submitted")]


def test_a_transfer_moved_to_another_block_is_reverted_then_recorded_again_in_one_pass(chain, rig, heard):
    chain.mine(200)  # the base fee settles at its floor, as it has after the rest of the suite ran on this node
    address = rig.watch(from_block=chain.head())
    sent = chain.send_token("USDC", 1, address, 3_000_000)
    rig.run_pass()
    first_block_hash = rig.transfer(sent.tx_hash).block_hash
    # Replace the last block by another one that holds the same transaction and one more. With the same transaction
    # alone, Anvil rebuilds the very same block (same hash) once the base fee has settled at its floor and the clock
    # is in the same second, as it is after the many blocks the rest of the suite mines: nothing would re-organise.
    other = chain.sign_eth(2, chain.accounts[4].address, 1)
    chain.w3.provider.make_request(  # type: ignore[arg-type]
        "anvil_reorg", [1, [["0x" + sent.raw.hex(), 0], ["0x" + other.hex(), 0]]])
    rig.run_pass()
    t = rig.transfer(sent.tx_hash)
    assert t.status == "submitted" and t.block_hash != first_block_hash
    assert t.block_hash == chain.w3.eth.get_block(t.block_number)["hash"].to_0x_hex()
    assert [(h.previous_status, h.status) for h in heard] == [("", "submitted"), ("submitted", "reverted"),
                                                              ("reverted", "submitted")]
