"""The transfer listener: ChainTransfer rows plus `hooks.notify` (what the watcher does) move charges and intents."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from paygate.v1 import payment_intents_pb2 as pb
from sqlmodel import SQLModel, col, select

import migrations.tables  # noqa: F401  (fills the metadata)
from server.boot.composition import compose
from server.chains import hooks
from server.chains.models import ChainTransfer, WatchedAddress
from server.config import load_settings
from server.context import Caller
from server.db import Database
from server.events.models import Event
from server.ids import new_id
from server.merchants.service import create_merchant
from server.payment_intents import convert, service
from server.payment_intents.aggregate import load_one
from server.payment_intents.env import Env
from server.payment_intents.models import Charge, PaymentIntent
from tests.clock import SetClock
from tests.harness import node_networks

USDT = "USDT-ETH-TEST"
ETH = "ETH-ETH-TEST"
USDC_UNITS = ("USDC-ETH-TEST", 6)
USDT_UNITS = (USDT, 6)


class World:
    def __init__(self, db: Database, env: Env, clock: SetClock) -> None:
        self.db, self.env = db, env
        self.clock = clock  # the runtime's: a test sets it to move past a quote's expiry

    def run(self, coro: Any) -> Any:
        return asyncio.run(coro)

    async def _intent(self, fields: dict[str, Any], asset_id: str = USDT) -> tuple[str, Charge]:
        async with self.db.transaction() as s:
            merchant, _ = await create_merchant(s, "Shop")
        caller = Caller(merchant.id, False, "secret")
        body = {"amount": "10", "currency": "USD", "merchant_order_id": "order-7", **fields}
        async with self.db.transaction() as s:
            created = await service.create(s, self.env, caller, pb.CreatePaymentIntentRequest(**body))
        async with self.db.transaction() as s:
            loaded = await service.update(s, self.env, caller, pb.UpdatePaymentIntentRequest(
                id=created.intent.id, payment_method_type="crypto",
                payment_method_options=pb.PaymentMethodOptionsInput(crypto=pb.CryptoPaymentInput(asset_id=asset_id))))
        charge = loaded.latest_charge
        assert charge is not None
        self.cancel_caller = caller
        return created.intent.id, charge

    def intent_paying(self, asset_id: str = USDT, **fields: Any) -> tuple[str, Charge]:
        return self.run(self._intent(fields, asset_id))  # type: ignore[no-any-return]

    async def _transfer(self, charge: Charge, usdt: str, status: str, aml: str, transfer_id: str | None,
                        asset: tuple[str, int] = (USDT, 6)) -> str:
        async with self.db.transaction() as s:
            now = self.clock.now()
            row = await s.get(ChainTransfer, transfer_id) if transfer_id else None
            previous = (row.status, row.aml_status) if row else ("", "")
            if row is None:
                row = ChainTransfer(id=new_id("tx"), network="ETH-TEST", tx_hash="0x" + new_id("h")[2:].ljust(64, "0"),
                                    block_number=10, block_hash="0xb", from_address="0x" + "a" * 40,
                                    to_address=charge.deposit_address, asset_id=asset[0],
                                    amount_base=Decimal(usdt).scaleb(asset[1]), decimals=asset[1],
                                    owner_id=charge.id,
                                    status=status, created_at=now, updated_at=now)
            row.status, row.aml_status, row.updated_at = status, aml, now
            row.aml_info = "sender on the deny list" if aml == "rejected" else ""
            s.add(row)
            await s.flush()
            await hooks.notify(s, row, *previous)
            return row.id

    def transfer(self, charge: Charge, usdt: str, status: str = "submitted", aml: str = "",
                 transfer_id: str | None = None, asset: tuple[str, int] = (USDT, 6)) -> str:
        """A transfer of `usdt` units of `asset` (asset id, decimals) to the charge's deposit address."""
        return self.run(self._transfer(charge, usdt, status, aml, transfer_id, asset))  # type: ignore[no-any-return]

    def confirm(self, charge: Charge, usdt: str, aml: str = "approved", asset: tuple[str, int] = (USDT, 6)) -> str:
        return self.transfer(charge, usdt, "confirmed", aml, asset=asset)

    async def _intent_row(self, intent_id: str) -> tuple[PaymentIntent, list[Charge], list[str]]:
        async with self.db.read() as s:
            intent = await s.get(PaymentIntent, intent_id)
            charges = list(await s.exec(select(Charge).where(Charge.payment_intent_id == intent_id)))
            events = list(await s.exec(select(Event.type).where(Event.object_id == intent_id)
                                       .order_by(col(Event.sort_key))))
        assert intent is not None
        return intent, charges, events

    def intent(self, intent_id: str) -> PaymentIntent:
        return self.run(self._intent_row(intent_id))[0]  # type: ignore[no-any-return]

    def charges(self, intent_id: str) -> list[Charge]:
        return self.run(self._intent_row(intent_id))[1]  # type: ignore[no-any-return]

    def events(self, intent_id: str) -> list[str]:
        return self.run(self._intent_row(intent_id))[2]  # type: ignore[no-any-return]

    async def _event_data(self, intent_id: str, type_: str) -> dict[str, Any]:
        async with self.db.read() as s:
            row = (await s.exec(select(Event).where(Event.object_id == intent_id, Event.type == type_))).first()
        assert row is not None
        return json.loads(row.data) if isinstance(row.data, str) else row.data  # type: ignore[no-any-return]

    async def _proto(self, intent_id: str) -> pb.PaymentIntent:
        async with self.db.read() as s:
            intent = await s.get(PaymentIntent, intent_id)
            assert intent is not None
            return convert.to_proto(self.env, await load_one(s, intent))

    def proto(self, intent_id: str) -> pb.PaymentIntent:
        """The intent as the API shows it."""
        return self.run(self._proto(intent_id))  # type: ignore[no-any-return]

    def event_data(self, intent_id: str, type_: str) -> dict[str, Any]:
        return self.run(self._event_data(intent_id, type_))  # type: ignore[no-any-return]


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    url = f"sqlite:///{tmp_path / 'p.db'}"
    engine = sa.create_engine(url)
    SQLModel.metadata.create_all(engine)
    engine.dispose()
    networks = tmp_path / "networks.toml"
    networks.write_text(node_networks())  # a node behind ETH-TEST: attempts open only on payable assets
    clock = SetClock()
    rt = compose(load_settings({"PAYGATE_DATABASE_URL": url, "PAYGATE_NETWORKS": str(networks)}),
                 var_dir=tmp_path / "var", clock=clock)
    assert len(hooks.listeners(rt.db)) == 2  # payments and the treasury ledger listen
    # The servicers probe the RPCs before each update; these tests call the service directly, so they probe once.
    assert asyncio.run(rt.health.answering()) == {"ETH-TEST"}
    yield World(rt.db, rt, clock)
    asyncio.run(rt.db.close())


def test_choosing_crypto_watches_the_deposit_address(world: World) -> None:
    intent_id, charge = world.intent_paying()

    async def watched() -> WatchedAddress | None:
        async with world.db.read() as s:
            return await s.get(WatchedAddress, ("ETH-TEST", charge.deposit_address))

    row = world.run(watched())
    assert row is not None and row.owner_id == charge.id
    intent = world.intent(intent_id)
    # Watched past the quote and the intent's expiry, so late funds are still recorded.
    assert row.watch_until >= max(charge.quote_expires_at, intent.expired_at) + 24 * 3600


def test_first_transaction_seen_moves_to_processing(world: World) -> None:
    intent_id, charge = world.intent_paying()
    world.transfer(charge, "10")
    assert world.intent(intent_id).status == "Processing"
    assert world.events(intent_id) == ["payment_intent.created", "payment_intent.processing"]


def test_partial_payment_then_top_up_succeeds(world: World) -> None:
    intent_id, charge = world.intent_paying()
    first = world.transfer(charge, "4")
    world.transfer(charge, "4", "confirming", transfer_id=first)
    assert world.intent(intent_id).status == "Processing"
    world.transfer(charge, "4", "confirmed", "approved", transfer_id=first)
    intent = world.intent(intent_id)
    assert intent.status == "PartialPaid" and intent.amount_captured == Decimal(4)
    world.confirm(charge, "6")
    intent = world.intent(intent_id)
    assert intent.status == "Success"
    assert intent.amount_captured == Decimal(10) and intent.amount_overpaid == 0
    assert intent.tx_fee == Decimal("0.1") and intent.net_amount == Decimal("9.9")  # tx_fee_percent 1
    assert world.charges(intent_id)[0].status == "Success"
    assert world.events(intent_id) == ["payment_intent.created", "payment_intent.processing",
                                       "payment_intent.partially_paid", "payment_intent.succeeded"]
    succeeded = world.event_data(intent_id, "payment_intent.succeeded")
    assert succeeded["object"]["merchant_order_id"] == "order-7"
    assert succeeded["object"]["status"] == "Success"
    assert succeeded["previous_attributes"]["status"] == "PartialPaid"
    tx = succeeded["object"]["charges"][0]["transactions"]
    assert sorted(t["amount"] for t in tx) == ["4000000", "6000000"]  # smallest units
    assert {t["status"] for t in tx} == {"confirmed"} and {t["aml_status"] for t in tx} == {"approved"}
    assert succeeded["object"]["payment_details"]["amount_captured"] == {"asset_id": USDT, "amount": "10"}


def test_complete_on_first_payment_succeeds_on_any_amount(world: World) -> None:
    intent_id, charge = world.intent_paying(complete_on_first_payment=True)
    world.confirm(charge, "1")
    intent = world.intent(intent_id)
    assert intent.status == "Success" and intent.amount_captured == Decimal(1)


def test_overpayment_is_recorded_not_lost(world: World) -> None:
    intent_id, charge = world.intent_paying()
    world.confirm(charge, "12.5")
    intent = world.intent(intent_id)
    assert intent.status == "Success"
    assert intent.amount_captured == Decimal("12.5") and intent.amount_overpaid == Decimal("2.5")
    world.confirm(charge, "1")  # more after success: still recorded
    assert world.intent(intent_id).amount_overpaid == Decimal("3.5")


def test_funds_still_being_screened_keep_the_charge_pending(world: World) -> None:
    intent_id, charge = world.intent_paying()
    world.confirm(charge, "10", aml="")  # confirmed, screening still running
    assert world.intent(intent_id).status == "Processing"
    assert world.charges(intent_id)[0].status == "Pending"
    world.transfer(charge, "10", "confirmed", "rejected", transfer_id=None)
    # a second, rejected transfer alone does not fail the charge while the first is still screened
    assert world.charges(intent_id)[0].status == "Pending"


def test_all_funds_rejected_fails_the_charge(world: World) -> None:
    intent_id, charge = world.intent_paying()
    tx = world.transfer(charge, "10")
    world.transfer(charge, "10", "confirmed", "rejected", transfer_id=tx)
    intent = world.intent(intent_id)
    assert intent.frozen_amount == Decimal(10) and intent.amount_captured == 0
    assert intent.status == "RequiresPaymentMethod"  # the payer may try again
    assert world.charges(intent_id)[0].status == "Failed"
    assert world.events(intent_id)[-1] == "payment_intent.payment_failed"
    failed = world.event_data(intent_id, "payment_intent.payment_failed")["object"]
    assert failed["payment_details"]["frozen_amount"] == {"asset_id": USDT, "amount": "10"}
    assert failed["charges"][0]["transactions"][0]["aml_info"] == "sender on the deny list"


def test_late_funds_after_cancel_are_recorded_on_the_charge(world: World) -> None:
    intent_id, charge = world.intent_paying()

    async def cancel() -> None:
        async with world.db.transaction() as s:
            await service.cancel(s, world.env, world.cancel_caller, pb.CancelPaymentIntentRequest(id=intent_id))

    world.run(cancel())
    world.confirm(charge, "10")
    intent = world.intent(intent_id)
    assert intent.status == "Canceled"
    assert intent.amount_received_late == Decimal(10) and intent.amount_captured == Decimal(10)
    assert world.charges(intent_id)[0].amount_captured == Decimal(10)
    assert world.events(intent_id) == ["payment_intent.created", "payment_intent.canceled"]


def test_a_reorg_that_drops_every_transfer_reopens_the_intent(world: World) -> None:
    intent_id, charge = world.intent_paying()
    tx = world.transfer(charge, "10")
    world.transfer(charge, "10", "reverted", transfer_id=tx)
    assert world.intent(intent_id).status == "RequiresPaymentMethod"


def test_transfers_of_other_owners_are_ignored(world: World) -> None:
    intent_id, charge = world.intent_paying()
    foreign = Charge.model_validate({**charge.model_dump(), "id": "ch_not_ours"})
    world.transfer(foreign, "10")
    assert world.intent(intent_id).status == "RequiresPaymentMethod"


def test_a_new_attempt_after_the_quote_expired_gets_a_new_quote_and_address_and_the_old_stays_watched(
        world: World) -> None:
    intent_id, first = world.intent_paying()
    later = first.quote_expires_at + 1
    world.clock.at(later)

    async def choose_again() -> Charge:
        async with world.db.transaction() as s:
            loaded = await service.update(s, world.env, world.cancel_caller, pb.UpdatePaymentIntentRequest(
                id=intent_id, payment_method_type="crypto",
                payment_method_options=pb.PaymentMethodOptionsInput(crypto=pb.CryptoPaymentInput(asset_id=USDT))))
        assert loaded.latest_charge is not None
        return loaded.latest_charge

    async def watched() -> dict[str, int]:
        async with world.db.read() as s:
            return {w.address: w.watch_until for w in await s.exec(select(WatchedAddress))}

    second = world.run(choose_again())
    assert second.id != first.id and second.deposit_address != first.deposit_address
    assert second.quote_expires_at > later
    rows = world.run(watched())
    assert rows[first.deposit_address] > later and rows[second.deposit_address] > later


# DESIGN §14: a transfer counts toward a charge only in the charge's own asset; funds in any other asset are recorded
# on the intent as unexpected funds (visible, refundable by an operator, never counted as paid).

def test_a_transfer_in_another_asset_never_pays_the_charge(world: World) -> None:
    intent_id, charge = world.intent_paying(ETH)  # 10 USD in ETH; 1 USDT must not count as 1 ETH
    world.confirm(charge, "1", asset=USDT_UNITS)
    intent = world.intent(intent_id)
    assert intent.status == "RequiresPaymentMethod"
    assert intent.amount_captured == 0 and intent.paid_asset_id == ""
    assert world.charges(intent_id)[0].amount_captured == 0
    assert world.events(intent_id) == ["payment_intent.created"]


def test_an_unconfirmed_transfer_in_another_asset_does_not_make_the_intent_processing(world: World) -> None:
    intent_id, charge = world.intent_paying(ETH)
    world.transfer(charge, "1", asset=USDT_UNITS)
    assert world.intent(intent_id).status == "RequiresPaymentMethod"


def test_funds_in_another_asset_are_shown_on_the_intent_as_unexpected_funds(world: World) -> None:
    intent_id, charge = world.intent_paying(ETH)
    tx_id = world.confirm(charge, "1", asset=USDT_UNITS)
    shown = world.proto(intent_id)
    [funds] = shown.unexpected_funds
    assert (funds.asset_id, funds.amount, funds.charge, funds.tx_id) == (USDT, "1", charge.id, tx_id)
    assert funds.tx_hash.startswith("0x") and funds.status == pb.TRANSACTION_STATUS_CONFIRMED
    assert list(shown.charges[0].transactions) == []  # the charge lists only what pays it
    assert shown.payment_details.amount_captured.amount == "0"


def test_own_asset_funds_count_alone_beside_unexpected_ones(world: World) -> None:
    intent_id, charge = world.intent_paying()  # 10 USD in USDT
    world.confirm(charge, "4")
    world.confirm(charge, "1", asset=USDC_UNITS)
    intent = world.intent(intent_id)
    assert intent.status == "PartialPaid" and intent.amount_captured == Decimal(4)
    world.confirm(charge, "6")
    intent = world.intent(intent_id)
    assert intent.status == "Success"
    assert intent.amount_captured == Decimal(10) and intent.amount_overpaid == 0
    assert [f.asset_id for f in world.proto(intent_id).unexpected_funds] == ["USDC-ETH-TEST"]


def test_an_intent_holding_only_unexpected_funds_can_still_be_canceled(world: World) -> None:
    intent_id, charge = world.intent_paying(ETH)
    world.confirm(charge, "1", asset=USDT_UNITS)

    async def cancel() -> None:
        async with world.db.transaction() as s:
            await service.cancel(s, world.env, world.cancel_caller, pb.CancelPaymentIntentRequest(id=intent_id))

    world.run(cancel())
    intent = world.intent(intent_id)
    assert intent.status == "Canceled" and intent.amount_received_late == 0
    assert len(world.proto(intent_id).unexpected_funds) == 1  # still visible after cancel
