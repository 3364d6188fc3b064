"""Building, signing and re-pricing an EVM payout transaction: pure functions, no node."""

from __future__ import annotations

from eth_account import Account

from server.rails.evm import transactions as chain

KEY = bytes.fromhex("59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")


def test_token_transfer_data_encodes_recipient_and_amount() -> None:
    data = chain.transfer_data("0x00000000000000000000000000000000000000Ab", 2_000_000)
    assert data == "0xa9059cbb" + "ab".rjust(64, "0") + format(2_000_000, "064x")


def test_signing_the_same_transaction_twice_gives_the_same_hash() -> None:
    tx = chain.Unsigned(to="0x00000000000000000000000000000000000000ab", value=1, data="0x", gas=21_000)
    fees = chain.Fees(max_fee_per_gas=3 * 10**9, max_priority_fee_per_gas=10**9)
    first, second = chain.sign(KEY, 31337, 7, tx, fees), chain.sign(KEY, 31337, 7, tx, fees)
    assert first == second and first[1].startswith("0x")


def test_a_signed_refund_recovers_to_the_treasury_key() -> None:
    tx = chain.Unsigned(to="0x00000000000000000000000000000000000000ab", value=1, data="0x", gas=21_000)
    raw, _ = chain.sign(KEY, 31337, 0, tx, chain.Fees(3 * 10**9, 10**9))
    assert Account.recover_transaction(raw) == Account.from_key(KEY).address


def test_a_replacement_raises_both_fees_by_at_least_an_eighth() -> None:
    old = chain.Fees(max_fee_per_gas=8 * 10**9, max_priority_fee_per_gas=10**9)
    new = chain.bumped(old, chain.Fees(max_fee_per_gas=1, max_priority_fee_per_gas=1))
    assert new.max_fee_per_gas * 8 >= old.max_fee_per_gas * 9
    assert new.max_priority_fee_per_gas * 8 >= old.max_priority_fee_per_gas * 9


def test_a_replacement_pays_at_least_the_market_fees() -> None:
    market = chain.Fees(max_fee_per_gas=100 * 10**9, max_priority_fee_per_gas=2 * 10**9)
    new = chain.bumped(chain.Fees(3 * 10**9, 10**9), market)
    assert (new.max_fee_per_gas, new.max_priority_fee_per_gas) == (100 * 10**9, 2 * 10**9)


def test_an_exact_replacement_keeps_its_tip_equal_to_its_cap() -> None:
    new = chain.bumped(chain.Fees(3 * 10**9, 3 * 10**9), chain.Fees(2 * 10**9, 2 * 10**9), exact=True)
    assert new.max_fee_per_gas == new.max_priority_fee_per_gas >= 3 * 10**9 * 9 // 8


def test_a_signed_transaction_decodes_to_what_was_signed() -> None:
    tx = chain.Unsigned(to="0x00000000000000000000000000000000000000ab", value=5, data="0x1234", gas=50_000)
    raw, _ = chain.sign(KEY, 31337, 9, tx, chain.Fees(7 * 10**9, 2 * 10**9))
    assert chain.decoded(raw) == (tx, chain.Fees(7 * 10**9, 2 * 10**9), 9)
