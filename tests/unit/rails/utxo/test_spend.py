"""Coin selection, fees by virtual size and signing (spend.py), without a node: the e2e tests (tests/e2e/utxo_rail/
test_spend.py) show the node accepts what is signed here."""

from __future__ import annotations

from decimal import Decimal

import pytest
from embit.ec import PrivateKey, Signature
from embit.script import p2pkh
from embit.transaction import SIGHASH, Transaction

from server.rails.base import PayoutRefused
from server.rails.utxo import spend
from server.rails.utxo.addresses import script_of
from server.rails.utxo.derivation import UtxoKeys
from server.rails.utxo.spend import Output, Utxo

MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
KEYS = UtxoKeys("rltc", 1)
DEST = script_of("rltc", "rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg")
CHANGE = script_of("rltc", KEYS.change_address(MNEMONIC, 0, 1))
P2PKH_DEST = script_of("rltc", "mguoC4m1pdnUvpvfqw1ASsBfFRnQBY435o")
P2TR_DEST = script_of("rltc", "rltc1pqypqxpq9qcrsszg2pvxq6rs0zqg3yyc5z5tpwxqergd3c8g7rusquyeyyt")


def utxo(value: int, n: int = 0) -> Utxo:
    return Utxo(txid=f"{n:064x}", vout=n % 3, value=value, address=KEYS.deposit_address(MNEMONIC, 0, n))


def test_the_virtual_size_of_p2wpkh_spends() -> None:
    assert spend.p2wpkh_vsize(1, 1) == 110
    assert spend.p2wpkh_vsize(1, 2) == 141
    assert spend.p2wpkh_vsize(2, 2) == 209
    assert spend.estimate_vsize(1, [DEST, P2PKH_DEST]) == 144  # a P2PKH output is 3 bytes longer


def test_the_fee_is_the_rate_times_the_vsize_rounded_up() -> None:
    assert spend.fee_for(Decimal("1.5"), 141) == 212
    assert spend.fee_for(2, 141) == 282


def test_the_dust_limits_are_bitcoin_cores() -> None:
    assert spend.dust_threshold(DEST) == spend.DUST_P2WPKH == 294
    assert spend.dust_threshold(DEST, spend.LITECOIN_DUST_RELAY_FEE) == 2940
    assert spend.dust_threshold(P2PKH_DEST) == 546
    assert spend.dust_threshold(P2TR_DEST) == 330


def test_the_smallest_output_that_covers_the_amount_is_spent_alone_with_change() -> None:
    coins = [utxo(50_000, 1), utxo(200_000, 2), utxo(1_000_000, 3)]
    plan = spend.select(coins, 100_000, DEST, CHANGE, 2)
    assert plan.inputs == (coins[1],)
    assert plan.fee == 282 and plan.value == 100_000 and plan.change == 200_000 - 100_000 - 282
    assert plan.outputs == (Output(DEST, 100_000), Output(CHANGE, plan.change))
    assert plan.vsize == 141


def test_without_a_single_output_large_enough_the_largest_go_first() -> None:
    coins = [utxo(30_000, 1), utxo(60_000, 2), utxo(70_000, 3)]
    plan = spend.select(coins, 100_000, DEST, CHANGE, 1)
    assert {u.value for u in plan.inputs} == {70_000, 60_000}
    assert plan.fee == 209 and plan.change == 130_000 - 100_000 - 209


def test_a_remainder_below_the_dust_limit_goes_to_the_fee() -> None:
    plan = spend.select([utxo(100_000 + 110 + 200)], 100_000, DEST, CHANGE, 1)
    assert plan.outputs == (Output(DEST, 100_000),) and plan.change == 0 and plan.fee == 310


def test_the_fee_comes_out_of_the_amount_when_asked() -> None:
    plan = spend.select([utxo(100_000)], 100_000, DEST, CHANGE, 3, fee_from_amount=True)
    assert plan.outputs == (Output(DEST, 100_000 - 330),) and plan.value == 99_670 and plan.fee == 330


def test_the_fee_out_of_the_amount_keeps_the_change() -> None:
    plan = spend.select([utxo(1_000_000)], 100_000, DEST, CHANGE, 1, fee_from_amount=True)
    assert plan.value == 100_000 - 141 and plan.change == 900_000 and plan.fee == 141


def test_an_amount_the_fee_would_eat_is_refused_as_below_the_network_fee() -> None:
    with pytest.raises(PayoutRefused) as refused:
        spend.select([utxo(1_000_000)], 3000, DEST, CHANGE, 10, fee_from_amount=True,
                     dust_relay_fee=spend.LITECOIN_DUST_RELAY_FEE)
    assert refused.value.reason == "amount_below_network_fee"


def test_a_change_too_large_to_give_away_is_never_given_to_the_fee() -> None:
    # With its change the fee (1,410) leaves less than dust; without it, the 998,600 of change would go to the miner.
    with pytest.raises(PayoutRefused) as refused:
        spend.select([utxo(1_000_000)], 1_400, DEST, CHANGE, 10, fee_from_amount=True)
    assert refused.value.reason == "amount_below_network_fee"


def test_more_than_the_outputs_hold_is_insufficient_funds() -> None:
    for fee_from_amount in (False, True):
        with pytest.raises(PayoutRefused) as refused:
            spend.select([utxo(40_000, 1), utxo(50_000, 2)], 90_001, DEST, CHANGE, 1, fee_from_amount=fee_from_amount)
        assert refused.value.reason == "insufficient_funds"
    with pytest.raises(PayoutRefused) as nothing:
        spend.select([], 1_000, DEST, CHANGE, 1)
    assert nothing.value.reason == "insufficient_funds"


def test_the_fee_on_top_can_make_the_funds_insufficient() -> None:
    with pytest.raises(PayoutRefused, match="insufficient_funds"):
        spend.select([utxo(100_000)], 99_900, DEST, CHANGE, 1)


def test_an_amount_below_the_dust_limit_is_refused() -> None:
    with pytest.raises(PayoutRefused, match="amount_below_dust"):
        spend.select([utxo(100_000)], 293, DEST, CHANGE, 1)


@pytest.mark.parametrize("rate", [0, -1, Decimal("NaN")])
def test_a_fee_rate_that_is_not_positive_is_refused(rate: Decimal) -> None:
    with pytest.raises(ValueError):
        spend.select([utxo(100_000)], 1_000, DEST, CHANGE, rate)


def test_a_sweep_spends_everything_to_one_output_less_the_fee() -> None:
    coins = [utxo(10_000, 1), utxo(20_000, 2), utxo(3_000, 3)]
    plan = spend.sweep(coins, DEST, 2)
    assert plan.inputs == tuple(coins) and plan.change == 0
    assert plan.vsize == spend.p2wpkh_vsize(3, 1) and plan.fee == 2 * plan.vsize
    assert plan.outputs == (Output(DEST, 33_000 - plan.fee),)


def test_a_sweep_of_nothing_or_of_dust_is_refused() -> None:
    with pytest.raises(PayoutRefused, match="insufficient_funds"):
        spend.sweep([], DEST, 1)
    with pytest.raises(PayoutRefused, match="amount_below_network_fee"):
        spend.sweep([utxo(3_000)], DEST, 1, dust_relay_fee=spend.LITECOIN_DUST_RELAY_FEE)


def test_a_sweep_too_large_for_one_transaction_is_refused() -> None:
    with pytest.raises(ValueError, match="in parts"):
        spend.sweep([utxo(10_000, n) for n in range(1_500)], DEST, 1)


def _signed_plan() -> tuple[spend.Plan, list[tuple[Utxo, bytes]]]:
    coins = [utxo(60_000, 0), utxo(70_000, 1)]
    plan = spend.select(coins, 100_000, DEST, CHANGE, 2)
    keyed = [(u, KEYS.deposit_key(MNEMONIC, 0, int(u.txid, 16))) for u in plan.inputs]
    return plan, keyed


def test_a_signed_spend_has_the_plans_outputs_replaceable_inputs_and_valid_signatures() -> None:
    plan, keyed = _signed_plan()
    signed = spend.build_and_sign(keyed, plan.outputs)
    tx = Transaction.parse(bytes.fromhex(signed.raw))
    assert tx.txid().hex() == signed.txid
    assert [(o.value, o.script_pubkey.data) for o in tx.vout] == [(o.value, o.script) for o in plan.outputs]
    assert [(i.txid.hex(), i.vout, i.sequence) for i in tx.vin] == [(u.txid, u.vout, 0xFFFFFFFD) for u, _ in keyed]
    for i, (u, key) in enumerate(keyed):
        signature, public = tx.vin[i].witness.items
        assert signature[-1] == SIGHASH.ALL and public == PrivateKey(key).sec()
        digest = tx.sighash_segwit(i, p2pkh(PrivateKey(key).get_public_key()), u.value, SIGHASH.ALL)
        assert PrivateKey(key).get_public_key().verify(Signature.parse(signature[:-1]), digest)
    assert signed.vsize <= plan.vsize


def test_signing_the_same_plan_again_gives_the_same_transaction() -> None:
    plan, keyed = _signed_plan()
    assert spend.build_and_sign(keyed, plan.outputs) == spend.build_and_sign(keyed, plan.outputs)


def test_a_key_that_is_not_the_outputs_is_refused() -> None:
    plan, keyed = _signed_plan()
    wrong = [(keyed[0][0], KEYS.deposit_key(MNEMONIC, 0, 5)), keyed[1]]
    with pytest.raises(ValueError, match="not the one of"):
        spend.build_and_sign(wrong, plan.outputs)


def test_outputs_worth_more_than_the_inputs_are_refused() -> None:
    _, keyed = _signed_plan()
    with pytest.raises(ValueError, match="worth more"):
        spend.build_and_sign(keyed, [Output(DEST, 130_001)])
