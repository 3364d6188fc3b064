"""An in-process paygate (composition root, real database: SQLite or PostgreSQL) for the treasury's domain tests."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import SQLModel, col, select

import migrations.tables  # noqa: F401  (fills the metadata)
from server.boot.composition import compose
from server.chains import hooks
from server.chains.models import ChainTransfer, WatchedAddress
from server.config import load_settings
from server.ids import new_id
from server.merchants.service import create_merchant
from server.rails.evm.derivation import EvmKeys
from server.refunds import service as refunds
from server.refunds.models import Refund
from server.runtime import Runtime
from server.treasury.ledger import postings
from server.treasury.ledger.models import Account, LedgerEntry
from server.wallet import addresses
from tests.harness import TEST_NETWORKS, create_database, drop_database

USDT = "USDT-ETH-TEST"
ETH = "ETH-ETH-TEST"
DECIMALS = {USDT: 6, ETH: 18}
EVM = EvmKeys()  # ETH-TEST's family


class World:
    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.db = rt.db

    def run(self, coro: Any) -> Any:
        return asyncio.run(coro)

    # ---------------------------------------------------------------------------------------------- set-up

    def merchant(self) -> str:
        async def go() -> str:
            async with self.db.transaction() as s:
                merchant, _ = await create_merchant(s, "Shop")
                await addresses.treasury_address(s, self.rt.keys, EVM, merchant.id, False)
            return merchant.id
        return self.run(go())  # type: ignore[no-any-return]

    def deposit_address(self, merchant_id: str) -> str:
        async def go() -> str:
            async with self.db.transaction() as s:
                address, _ = await addresses.new_deposit_address(s, self.rt.keys, EVM, merchant_id, False)
                now = self.db.clock.now()
                s.add(WatchedAddress(network="ETH-TEST", address=address, owner_id=new_id("ch"),
                                     merchant_id=merchant_id, livemode=False, watch_until=now + 3600))
            return address
        return self.run(go())  # type: ignore[no-any-return]

    def transfer(self, to: str, amount: str, status: str = "submitted", aml: str = "", transfer_id: str | None = None,
                 asset_id: str = USDT) -> str:
        """A ChainTransfer written and announced the way the watcher does it."""
        async def go() -> str:
            async with self.db.transaction() as s:
                now = self.db.clock.now()
                row = await s.get(ChainTransfer, transfer_id) if transfer_id else None
                previous = (row.status, row.aml_status) if row else ("", "")
                if row is None:
                    decimals = DECIMALS[asset_id]
                    row = ChainTransfer(id=new_id("tx"), network="ETH-TEST", tx_hash="0x" + new_id("h")[2:],
                                        block_number=10, block_hash="0xb", from_address="0x" + "a" * 40,
                                        to_address=to, asset_id=asset_id,
                                        amount_base=Decimal(amount).scaleb(decimals), decimals=decimals,
                                        owner_id="ch", status=status, created_at=now, updated_at=now)
                row.status, row.aml_status, row.updated_at = status, aml, now
                s.add(row)
                await s.flush()
                await hooks.notify(s, row, *previous)
                return row.id
        return self.run(go())  # type: ignore[no-any-return]

    def refund(self, merchant_id: str, amount: str, status: str = "Pending", refund_id: str | None = None,
               asset_id: str = USDT) -> str:
        """A chain refund row moved to `status`, with its event recorded, as the refund service and sender do."""
        async def go() -> str:
            async with self.db.transaction() as s:
                now = self.db.clock.now()
                row = await s.get(Refund, refund_id) if refund_id else None
                if row is None:
                    row = Refund(id=new_id("rf"), merchant_id=merchant_id, livemode=False,
                                 payment_intent_id=await self._intent(s, merchant_id), asset_id=asset_id,
                                 network="ETH-TEST", decimals=DECIMALS[asset_id], amount=Decimal(amount),
                                 refund_address="0x" + "b" * 40, status=status, created=now, updated=now)
                    type_ = "refund.created"
                else:
                    type_ = "refund.updated"
                row.status = status
                s.add(row)
                await s.flush()
                await refunds.record(s, self.rt, row, type_, None)
                return row.id
        return self.run(go())  # type: ignore[no-any-return]

    async def _intent(self, s: Any, merchant_id: str) -> str:
        from server.payment_intents.models import PaymentIntent
        now = self.db.clock.now()
        intent = PaymentIntent(id=new_id("pi"), merchant_id=merchant_id, livemode=False, amount=Decimal(10),
                               currency="USD", status="Success", expired_at=now + 60, created=now, updated=now)
        s.add(intent)
        await s.flush()
        return intent.id

    # ---------------------------------------------------------------------------------------------- reading

    def balances(self, merchant_id: str) -> dict[str, dict[Account, Decimal]]:
        async def go() -> dict[str, dict[Account, Decimal]]:
            async with self.db.read() as s:
                found = await postings.balances(s, merchant_id, False)
            return {a: {k: v for k, v in per.items() if v != 0} for a, per in found.items()}
        return self.run(go())  # type: ignore[no-any-return]

    def entries(self, merchant_id: str | None = None) -> list[LedgerEntry]:
        async def go() -> list[LedgerEntry]:
            async with self.db.read() as s:
                query = select(LedgerEntry).order_by(col(LedgerEntry.sort_key))
                if merchant_id:
                    query = query.where(LedgerEntry.merchant_id == merchant_id)
                return list(await s.exec(query))
        return self.run(go())  # type: ignore[no-any-return]

    def treasury(self, merchant_id: str) -> str:
        async def go() -> str:
            async with self.db.read() as s:
                found = await addresses.treasury_address(s, self.rt.keys, EVM, merchant_id, False,
                                                         allocate=False)
            assert found
            return found.lower()
        return self.run(go())  # type: ignore[no-any-return]


def build_world(kind: str, tmp_path: Path) -> Iterator[World]:
    url = create_database(kind, tmp_path)
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    SQLModel.metadata.create_all(engine)
    engine.dispose()
    networks = tmp_path / "networks.toml"
    networks.write_text(TEST_NETWORKS)
    rt = compose(load_settings({"PAYGATE_DATABASE_URL": url, "PAYGATE_NETWORKS": str(networks)}),
                 var_dir=tmp_path / "var")
    try:
        yield World(rt)
    finally:
        asyncio.run(rt.db.close())
        drop_database(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    yield from build_world(request.param, tmp_path)
