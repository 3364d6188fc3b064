"""Transactions built and signed by spend.py, accepted by the real node: coins the payer sent to deposit addresses
derived by UtxoKeys, spent with the keys UtxoKeys derives for them."""

from __future__ import annotations

from decimal import Decimal

from server.rails.utxo import spend
from server.rails.utxo.addresses import script_of
from server.rails.utxo.rail import UtxoRail
from tests.litecoin import MNEMONIC, Litecoin, run

RATE = Decimal(2)  # sat/vB: above the node's minimum relay fee (1)


def test_a_spend_of_two_deposit_addresses_is_accepted_mined_and_pays_the_destination_amount_less_fee(
        litecoin: Litecoin, account: int) -> None:
    keys = litecoin.keys
    deposits = [keys.deposit_address(MNEMONIC, account, i) for i in range(2)]
    destination = str(litecoin.wallet("getnewaddress", "", "bech32"))
    change = keys.change_address(MNEMONIC, account, 1)
    rail = UtxoRail(litecoin.network)
    ltc = rail.native
    assert ltc is not None

    async def scenario() -> None:
        litecoin.pay(deposits[0], Decimal("0.6"))
        litecoin.pay(deposits[1], Decimal("0.7"))
        litecoin.mine()
        utxos = await rail.utxos(deposits)
        assert sorted(u.value for u in utxos) == [60_000_000, 70_000_000]
        # More than either output holds: both are spent, the fee out of the amount (a refund's net amount).
        plan = spend.select(utxos, 100_000_000, script_of("rltc", destination), script_of("rltc", change), RATE,
                            fee_from_amount=True, dust_relay_fee=rail.params.dust_relay_fee)
        assert len(plan.inputs) == 2 and plan.change == 30_000_000
        assert plan.value == 100_000_000 - plan.fee and plan.fee == spend.fee_for(RATE, plan.vsize)
        key_of = {keys.deposit_address(MNEMONIC, account, i): keys.deposit_key(MNEMONIC, account, i) for i in range(2)}
        signed = spend.build_and_sign([(u, key_of[u.address]) for u in plan.inputs], plan.outputs)
        assert signed.vsize <= plan.vsize

        [verdict] = litecoin.call("testmempoolaccept", [signed.raw])
        assert verdict["allowed"] is True, verdict
        assert verdict["txid"] == signed.txid and verdict["vsize"] == signed.vsize
        assert litecoin.call("sendrawtransaction", signed.raw) == signed.txid
        entry = litecoin.call("getmempoolentry", signed.txid)
        assert entry["bip125-replaceable"] is True
        assert int(Decimal(entry["fees"]["base"]).scaleb(8)) == plan.fee

        litecoin.mine()
        height = litecoin.head()
        scanner = rail.scanner()
        result = await scanner.scan(height, height, {destination, change})
        await scanner.close()
        paid = {t.to_address: t.amount_base for t in result.transfers if t.tx_hash == signed.txid}
        assert paid == {destination: 100_000_000 - plan.fee, change: 30_000_000}
        assert await rail.balances([(ltc, a) for a in (*deposits, change)]) == [0, 0, 30_000_000]

    run(scenario())


def test_a_sweep_consolidates_deposits_into_the_treasury_less_its_fee(litecoin: Litecoin, account: int) -> None:
    keys = litecoin.keys
    deposits = [keys.deposit_address(MNEMONIC, account, i) for i in range(3)]
    treasury = keys.treasury_address(MNEMONIC, account)
    rail = UtxoRail(litecoin.network)
    ltc = rail.native
    assert ltc is not None

    async def scenario() -> None:
        litecoin.wallet("sendmany", "", {deposits[0]: Decimal("0.01"), deposits[1]: Decimal("0.02"),
                                         deposits[2]: Decimal("0.00003")})
        litecoin.mine()
        utxos = await rail.utxos(deposits)
        plan = spend.sweep(utxos, script_of("rltc", treasury), RATE, dust_relay_fee=rail.params.dust_relay_fee)
        key_of = {keys.deposit_address(MNEMONIC, account, i): keys.deposit_key(MNEMONIC, account, i) for i in range(3)}
        signed = spend.build_and_sign([(u, key_of[u.address]) for u in plan.inputs], plan.outputs)
        assert litecoin.call("sendrawtransaction", signed.raw) == signed.txid
        litecoin.mine()
        assert await rail.balances([(ltc, treasury)]) == [3_003_000 - plan.fee]
        assert await rail.balances([(ltc, a) for a in deposits]) == [0, 0, 0]

    run(scenario())


def test_a_signature_over_another_input_value_is_refused_by_the_node(litecoin: Litecoin, account: int) -> None:
    """The node checks what spend.py signs: a witness for the wrong value (BIP-143 commits to it) is rejected."""
    keys = litecoin.keys
    deposit = keys.deposit_address(MNEMONIC, account, 0)
    rail = UtxoRail(litecoin.network)

    async def scenario() -> None:
        litecoin.pay(deposit, Decimal("0.05"))
        litecoin.mine()
        [utxo] = await rail.utxos([deposit])
        lie = spend.Utxo(utxo.txid, utxo.vout, utxo.value + 1, utxo.address)
        signed = spend.build_and_sign([(lie, keys.deposit_key(MNEMONIC, account, 0))],
                                      [spend.Output(script_of("rltc", deposit), utxo.value - 10_000)])
        [verdict] = litecoin.call("testmempoolaccept", [signed.raw])
        assert verdict["allowed"] is False and "signature" in verdict["reject-reason"].lower()

    run(scenario())
