"""Payouts through the UTXO rail (`AddressPayouts`) on the worker's litecoind and a real database (SQLite and
PostgreSQL): outputs reserved so that concurrent payouts never spend one twice, a spend stored before broadcast is
sent once after a crash, and a spend whose input went elsewhere is handed back to be signed again."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import SQLModel, select
from sqlmodel.ext.asyncio.session import AsyncSession

import migrations.tables  # noqa: F401  (fills the metadata)
from server.db import Database
from server.rails.base import ChainUnavailable, Outcome, Payout, PayoutResult, PendingPayout, SignedPayout
from server.rails.utxo import spend
from server.rails.utxo.addresses import script_of
from server.rails.utxo.models import UtxoReservedInput
from server.rails.utxo.rail import PayingUtxoRail
from tests.harness import create_database, drop_database
from tests.litecoin import MNEMONIC, Litecoin, run

PAYOUTS = 10


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    url = create_database(request.param, tmp_path)
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    SQLModel.metadata.create_all(engine)
    engine.dispose()
    database = Database(url)
    try:
        yield database
    finally:
        run(database.close())
        drop_database(url)


@dataclass
class Owner:
    """The owner's side of `PayoutOwner`, keeping what the rail decided."""

    key: bytes
    results: list[PayoutResult] = field(default_factory=list)

    async def key_of(self, network: str, source: str) -> bytes | None:
        return self.key

    async def waiting(self, network: str, source: str) -> set[int]:
        return set()

    async def undecided(self, session: AsyncSession, payout_id: str) -> bool:
        return True

    async def decided(self, result: PayoutResult) -> None:
        self.results.append(result)


def _pending(payout_id: str, signed: SignedPayout) -> PendingPayout:
    return PendingPayout(id=payout_id, network=signed.network, asset_id="LTC-LTC-TEST", source=signed.source,
                         sequence=signed.sequence, tx_hash=signed.tx_hash, raw=signed.raw,
                         value_base=signed.value_base, created_at=0)


def _funded(litecoin: Litecoin, account: int, db: Database, *amounts: Decimal) -> tuple[PayingUtxoRail, str, bytes]:
    """A paying rail and a treasury (address, key) of its own holding one confirmed output of each amount."""
    rail = PayingUtxoRail(litecoin.network, db)
    assert rail.native is not None
    source, key = litecoin.keys.treasury_address(MNEMONIC, account), litecoin.keys.treasury_key(MNEMONIC, account)
    for amount in amounts:
        litecoin.pay(source, amount)
    litecoin.mine()
    return rail, source, key


async def _sign(rail: PayingUtxoRail, db: Database, payout: Payout, key: bytes, payout_id: str) -> SignedPayout:
    quote = await rail.quote_payout(payout)
    async with db.transaction() as session:
        return await rail.sign_payout(session, quote, key, payout_id, lambda _: None)


def test_payouts_signed_at_once_from_one_quote_never_spend_one_output_twice(litecoin: Litecoin, account: int,
                                                                           db: Database) -> None:
    rail, source, key = _funded(litecoin, account, db, *[Decimal("0.2")] * PAYOUTS)
    destinations = [str(litecoin.wallet("getnewaddress", "", "bech32")) for _ in range(PAYOUTS)]

    async def scenario() -> list[SignedPayout]:
        # Every quote is made before any is signed: each picks the same smallest output, and the signers must not.
        quotes = [await rail.quote_payout(Payout(rail.native, source, to, 10_000_000))  # type: ignore[arg-type]
                  for to in destinations]
        assert len({q.detail.plan.inputs for q in quotes}) == 1  # type: ignore[attr-defined]

        async def sign(i: int) -> SignedPayout:
            async with db.transaction() as session:
                signed = await rail.sign_payout(session, quotes[i], key, f"rtx_{i}", lambda _: None)
                await asyncio.sleep(0.01)  # the owner's own writes, the reservation held
                return signed

        return list(await asyncio.gather(*(sign(i) for i in range(PAYOUTS))))

    signed = run(scenario())
    assert len({s.sequence for s in signed}) == PAYOUTS
    spent = [(vin["txid"], vin["vout"]) for s in signed
             for vin in litecoin.call("decoderawtransaction", s.raw)["vin"]]
    assert len(spent) == len(set(spent)) == PAYOUTS
    for s in signed:
        assert litecoin.call("sendrawtransaction", s.raw) == s.tx_hash
    litecoin.mine()
    for s, to in zip(signed, destinations, strict=True):
        assert Decimal(str(litecoin.wallet("getreceivedbyaddress", to, 1))).scaleb(8) == s.value_base


def test_a_payout_beyond_the_free_outputs_waits_and_reserves_nothing(litecoin: Litecoin, account: int,
                                                                    db: Database) -> None:
    rail, source, key = _funded(litecoin, account, db, Decimal("0.2"))
    to = str(litecoin.wallet("getnewaddress", "", "bech32"))

    async def scenario() -> None:
        payout = Payout(rail.native, source, to, 10_000_000)  # type: ignore[arg-type]
        first, second = await rail.quote_payout(payout), await rail.quote_payout(payout)
        async with db.transaction() as session:
            await rail.sign_payout(session, first, key, "rtx_first", lambda _: None)
        with pytest.raises(ChainUnavailable, match="waits for the spends in flight"):
            async with db.transaction() as session:
                await rail.sign_payout(session, second, key, "rtx_second", lambda _: None)
        async with db.read() as session:
            assert len(list(await session.exec(select(UtxoReservedInput)))) == 1

    run(scenario())


def test_a_spend_stored_but_never_broadcast_is_sent_once_and_then_paid(litecoin: Litecoin, account: int,
                                                                      db: Database) -> None:
    rail, source, key = _funded(litecoin, account, db, Decimal("0.5"))
    assert rail.native is not None
    to = str(litecoin.wallet("getnewaddress", "", "bech32"))
    owner = Owner(key)

    # What a process killed between its commit and its broadcast leaves: the spend stored, the node never told.
    signed = run(_sign(rail, db, Payout(rail.native, source, to, 30_000_000), key, "rtx_crash"))
    assert signed.tx_hash not in litecoin.call("getrawmempool")
    run(rail.follow(source, [_pending("rtx_crash", signed)], owner))
    assert signed.tx_hash in litecoin.call("getrawmempool")
    run(rail.follow(source, [_pending("rtx_crash", signed)], owner))  # sent already: nothing more, nothing decided
    assert owner.results == []
    litecoin.mine(litecoin.network.confirmations)
    run(rail.follow(source, [_pending("rtx_crash", signed)], owner))
    [paid] = owner.results
    fee = 30_000_000 - signed.value_base
    assert (paid.outcome, paid.tx_hash, paid.value_base, paid.fee_base) == (Outcome.PAID, signed.tx_hash,
                                                                          signed.value_base, fee)
    assert Decimal(str(litecoin.wallet("getreceivedbyaddress", to, 1))).scaleb(8) == signed.value_base
    assert litecoin.call("getrawtransaction", signed.tx_hash, True)["confirmations"] >= 1


def test_a_spend_whose_input_went_to_another_transaction_is_lost_and_its_inputs_released(
        litecoin: Litecoin, account: int, db: Database) -> None:
    rail, source, key = _funded(litecoin, account, db, Decimal("0.5"))
    assert rail.native is not None
    to = str(litecoin.wallet("getnewaddress", "", "bech32"))
    owner = Owner(key)
    signed = run(_sign(rail, db, Payout(rail.native, source, to, 30_000_000), key, "rtx_lost"))

    async def spend_elsewhere() -> None:
        [utxo] = await rail.utxos([source])
        elsewhere = str(litecoin.wallet("getnewaddress", "", "bech32"))
        other = spend.build_and_sign([(utxo, key)], [spend.Output(script_of("rltc", elsewhere), utxo.value - 500)])
        assert litecoin.call("sendrawtransaction", other.raw) == other.txid

    run(spend_elsewhere())  # e.g. the merchant moving the treasury's coins with its own wallet
    run(rail.follow(source, [_pending("rtx_lost", signed)], owner))
    assert [r.outcome for r in owner.results] == [Outcome.LOST]

    async def reserved() -> int:
        async with db.read() as session:
            return len(list(await session.exec(select(UtxoReservedInput))))

    assert run(reserved()) == 0
