"""The balance answers the ledger's sums: per asset exactly, in USD at the configured rates."""

from __future__ import annotations

from decimal import Decimal

from server.treasury.ledger import balance
from tests.unit.treasury.world import ETH, USDT, World, world  # noqa: F401


def _balance(w: World, merchant_id: str) -> balance.Balance:
    async def go() -> balance.Balance:
        async with w.db.read() as s:
            return await balance.of_merchant(s, w.rt.catalogue, w.rt.rates, merchant_id, False)
    return w.run(go())  # type: ignore[no-any-return]


def test_each_account_is_the_sum_of_its_legs(world: World) -> None:  # noqa: F811
    m = world.merchant()
    address = world.deposit_address(m)
    world.transfer(address, "10", "confirmed", "approved")  # available 9.9
    world.transfer(address, "3")  # pending
    world.transfer(address, "2", "confirmed", "rejected")  # frozen
    world.refund(m, "4")  # locked, out of available
    world.transfer(address, "0.5", "confirmed", "approved", asset_id=ETH)  # available 0.495 ETH
    found = _balance(world, m)
    per = dict(found.per_asset)
    usdt = per[USDT]
    assert (usdt.available, usdt.pending, usdt.locked, usdt.frozen, usdt.total) == (
        Decimal("5.9"), Decimal("3"), Decimal("4"), Decimal("2"), Decimal("14.9"))
    assert per[ETH].available == Decimal("0.495") and per[ETH].total == Decimal("0.495")
    # USD: USDT at 1, ETH at 3000
    assert found.fiat.available == Decimal("5.9") + Decimal("1485")
    assert found.rounded(found.fiat.total) == "1499.9"
    assert found.currency == "USD"


def test_the_totals_are_in_the_merchants_settlement_currency(world: World) -> None:  # noqa: F811
    from server.merchants.models import Merchant

    m = world.merchant()
    address = world.deposit_address(m)
    world.transfer(address, "10", "confirmed", "approved")  # 9.9 USDT available
    world.transfer(address, "0.5", "confirmed", "approved", asset_id=ETH)  # 0.495 ETH available

    async def settle_in(code: str) -> None:
        async with world.db.transaction() as s:
            merchant = await s.get(Merchant, m)
            assert merchant is not None
            merchant.settlement_currency = code
            s.add(merchant)

    assert _balance(world, m).currency == "USD"  # the default
    world.run(settle_in("EUR"))
    found = _balance(world, m)
    # EUR at 1.08 USD: (9.9 + 0.495 x 3000) / 1.08 = 1494.9 / 1.08 = 1384.1666…
    assert (found.currency, found.rounded(found.fiat.available)) == ("EUR", "1384.17")
    assert dict(found.per_asset)[USDT].available == Decimal("9.9")  # the per-asset amounts do not change
