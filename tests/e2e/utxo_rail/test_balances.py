"""Balances and unspent outputs from the node's UTXO set (scantxoutset), exact to the litoshi."""

from __future__ import annotations

from decimal import ROUND_UP, Decimal

from server.rails.utxo.rail import UtxoRail
from tests.litecoin import MNEMONIC, Litecoin, run


def test_scantxoutset_balances_are_exact_in_order_and_count_only_confirmed_outputs(
        litecoin: Litecoin, account: int) -> None:
    a, b, empty, pending = (litecoin.keys.deposit_address(MNEMONIC, account, i) for i in range(4))
    rail = UtxoRail(litecoin.network)
    ltc = rail.native
    assert ltc is not None

    async def scenario() -> None:
        first = litecoin.pay(a, Decimal("0.00000001") * 123_456_789)
        litecoin.pay(a, Decimal("0.1"))
        litecoin.wallet("sendmany", "", {b: Decimal("7.77777777")})
        litecoin.mine()
        litecoin.pay(pending, Decimal("1"))  # still in the mempool
        assert await rail.balances([(ltc, a), (ltc, b), (ltc, empty), (ltc, pending), (ltc, a)]) == [
            123_456_789 + 10_000_000, 777_777_777, 0, 0, 123_456_789 + 10_000_000]
        assert await rail.balance(ltc, b) == 777_777_777
        height = litecoin.head()
        outputs = await rail.utxos([a, b, empty])
        assert sorted((u.address, u.value, u.height) for u in outputs) == sorted([
            (a, 123_456_789, height), (a, 10_000_000, height), (b, 777_777_777, height)])
        first_out = next(u for u in outputs if u.txid == first)
        assert litecoin.call("gettxout", first, first_out.vout)["value"] == Decimal("1.23456789")
        litecoin.mine()
        assert await rail.balances([(ltc, pending)]) == [100_000_000]

    run(scenario())


def test_an_asset_of_another_network_holds_nothing_here(litecoin: Litecoin, account: int) -> None:
    from server.catalogue.catalogue import load

    rail = UtxoRail(litecoin.network)
    address = litecoin.keys.deposit_address(MNEMONIC, account, 0)
    other = next(a for a in load().assets if not a.is_fiat and a.network != "LTC-TEST")
    assert run(rail.balances([(other, address)])) == [0]


def test_the_fee_rate_is_the_nodes_estimate_never_below_the_networks_floor(litecoin: Litecoin) -> None:
    """A fresh regtest node has no estimate (the rate is fee_rate_floor, 1 sat/vB in the dev chain's entry); once the
    worker's node has seen enough blocks of test transactions it has one, in LTC per 1000 vB."""
    rate = run(UtxoRail(litecoin.network).fee_rate())
    estimate = litecoin.call("estimatesmartfee", 3).get("feerate")
    expected = Decimal(1) if estimate is None else max(Decimal(1), (Decimal(str(estimate)) * 10**8 / 1000))
    assert rate == expected.quantize(Decimal("0.001"), rounding=ROUND_UP)
    assert rate >= Decimal(1)
