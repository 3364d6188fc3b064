"""The EVM rail's capabilities against a real Anvil: addresses, fee estimation, and a payout signed, stored before its
broadcast and followed to its end. The payout's owner is a small one written here (refunds are one in production)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from eth_account import Account
from sqlmodel import SQLModel, select
from sqlmodel.ext.asyncio.session import AsyncSession
from web3 import Web3

import migrations.tables  # noqa: F401  (fills the metadata)
from server.catalogue.catalogue import Asset, Catalogue, CatalogueError, load
from server.clock import now_of
from server.config import load_settings
from server.db import Database
from server.ids import new_id
from server.rails import registry
from server.rails.base import (
    AddressBook,
    AddressPayouts,
    Balances,
    InvalidAddress,
    Outcome,
    Payout,
    PayoutRefused,
    PayoutResult,
    PendingPayout,
    Rail,
    Receiver,
    SignedPayout,
)
from server.rails.evm.models import SignedTransaction, TreasuryNonce
from server.rails.evm.rail import EvmRail
from server.rails.evm.transactions import NATIVE_GAS, PRIORITY_FEE_WEI
from server.rails.registry import Rails
from server.refunds.models import Refund, RefundTransaction
from tests.chain import Chain, chain  # noqa: F401  (the session's Anvil)
from tests.e2e.refunds.support import rpc

NETWORK = "ETH-TEST"
ETH, USDT = "ETH-ETH-TEST", "USDT-ETH-TEST"
DESTINATION = "0x00000000000000000000000000000000000000aa"


@dataclass
class Owner:
    """A payout owner keeping its payouts in refund transactions (the rail's signed transactions refer to them)."""

    db: Database
    keys: dict[str, bytes]
    results: list[PayoutResult] = field(default_factory=list)

    async def key_of(self, source: str) -> bytes | None:
        return self.keys.get(source)

    async def waiting(self, network: str, source: str) -> set[int]:
        async with self.db.read() as session:
            return set(await session.exec(select(RefundTransaction.nonce).where(
                RefundTransaction.source_address == source, RefundTransaction.status == "pending")))

    async def undecided(self, session: AsyncSession, payout_id: str) -> bool:
        row = await session.get(RefundTransaction, payout_id, with_for_update=True)
        return row is not None and row.status == "pending"

    async def decided(self, result: PayoutResult) -> None:
        self.results.append(result)


@dataclass
class World:
    chain: Chain
    db: Database
    catalogue: Catalogue
    rail: EvmRail
    url: str

    def run(self, coro: Any) -> Any:
        return asyncio.run(coro)

    def asset(self, asset_id: str) -> Asset:
        return self.catalogue.by_id[asset_id]

    def funded_source(self, wei: int = 10**18, usdt: int = 0) -> tuple[str, bytes]:
        """A fresh key funded from Anvil's first account: no other test moves its nonce."""
        key = secrets.token_bytes(32)
        address = Account.from_key(key).address.lower()
        self.chain.send_eth(0, address, wei)
        if usdt:
            self.chain.send_token("USDT", 0, address, usdt)
        return address, key

    def base_fee(self) -> int:
        return int(self.chain.w3.eth.get_block("latest")["baseFeePerGas"])

    def owner_parent(self) -> str:
        """A refund row for the payout's transaction to belong to (written without its own parents)."""
        refund_id = new_id("rf")
        engine = sa.create_engine(self.url)  # a plain connection: SQLite's foreign keys are off
        with engine.begin() as conn:
            conn.execute(sa.insert(Refund.__table__).values(  # type: ignore[attr-defined]
                id=refund_id, merchant_id="mch_test", livemode=False, payment_intent_id="pi_test", charge_id="",
                asset_id=ETH, network=NETWORK, decimals=18, amount="1", network_fee="0", refund_address=DESTINATION,
                reason="", description="", metadata={}, exchange_rate="1", status="Processing",
                failure_reason="", created=0, sort_key=0, updated=0))
        engine.dispose()
        return refund_id

    async def sign(self, payout: Payout, key: bytes) -> tuple[SignedPayout, str]:
        quote = await self.rail.quote_payout(payout)
        refund_id, tx_id = self.owner_parent(), new_id("rtx")

        def record(signed: SignedPayout) -> None:
            session.add(RefundTransaction(
                id=tx_id, refund_id=refund_id, network=NETWORK, source_address=signed.source,
                destination_address=payout.destination, nonce=signed.sequence, tx_hash=signed.tx_hash,
                raw=signed.raw, amount_base=Decimal(signed.value_base), decimals=payout.asset.decimals,
                asset_id=payout.asset.id, status="pending", created_at=now_of(session), updated_at=now_of(session)))

        async with self.db.transaction() as session:
            signed = await self.rail.sign_payout(session, quote, key, tx_id, record)
        return signed, tx_id

    def pending(self, signed: SignedPayout, tx_id: str, asset_id: str = ETH) -> PendingPayout:
        return PendingPayout(id=tx_id, network=NETWORK, asset_id=asset_id, source=signed.source,
                             sequence=signed.sequence, tx_hash=signed.tx_hash, raw=signed.raw,
                             value_base=signed.value_base, created_at=self.db.clock.now())


@pytest.fixture
def world(chain: Chain, tmp_path: Path) -> Iterator[World]:  # noqa: F811
    url = f"sqlite:///{tmp_path / 'rail.db'}"
    engine = sa.create_engine(url)
    SQLModel.metadata.create_all(engine)
    engine.dispose()
    catalogue = load(chain.networks_file)
    db = Database(url)
    yield World(chain, db, catalogue, EvmRail(catalogue.networks[NETWORK], catalogue, db, stuck_seconds=120), url)
    asyncio.run(db.close())


# ------------------------------------------------------------------------------------------------ capabilities


def test_the_evm_rail_has_every_capability(world: World) -> None:
    rail = world.rail
    assert isinstance(rail, Rail) and rail.family == "evm" and rail.name == NETWORK
    for capability in (Receiver, AddressBook, Balances, AddressPayouts):
        assert isinstance(rail, capability), capability.__name__


def test_the_registry_gives_each_network_with_an_rpc_url_its_rail(world: World) -> None:
    rails = Rails(world.catalogue, world.db, load_settings({}))
    assert rails.payouts(NETWORK) is not None and rails.addresses(NETWORK) is not None
    assert rails.payouts("NO-SUCH-NETWORK") is None


@dataclass
class CardRail:
    """What a card provider's rail looks like to the registry: a Rail with none of the address capabilities."""

    name: str = "provider_x"
    family: str = "card"


def test_a_configured_provider_gets_its_rail_and_no_address_capability(world: World,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.PROVIDERS, "provider_x", lambda settings: CardRail())
    rails = Rails(world.catalogue, world.db, replace(load_settings({}), providers=frozenset({"provider_x"})))
    assert isinstance(rails.get("provider_x"), CardRail)
    assert rails.payouts("provider_x") is None and rails.addresses("provider_x") is None


def test_a_network_of_a_family_without_a_rail_is_refused_at_start(world: World) -> None:
    net = replace(world.catalogue.networks[NETWORK], family="tron")
    with pytest.raises(CatalogueError, match="tron"):
        Rails(Catalogue(networks={NETWORK: net}, assets=world.catalogue.assets), world.db, load_settings({}))


# ------------------------------------------------------------------------------------------------ addresses


def test_a_lower_case_address_is_kept(world: World) -> None:
    assert world.rail.normalize_address(DESTINATION) == DESTINATION


MIXED = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"  # EIP-55's own example


def test_a_checksummed_address_is_stored_lower_case(world: World) -> None:
    assert world.rail.normalize_address(MIXED) == MIXED.lower()


def test_a_mixed_case_address_with_a_wrong_checksum_is_refused(world: World) -> None:
    wrong = MIXED.replace("aA", "Aa", 1)  # one letter's case changed: still mixed case, checksum broken
    with pytest.raises(InvalidAddress):
        world.rail.normalize_address(wrong)


@pytest.mark.parametrize("value", ["", "0x1234", "0x" + "g" * 40, "52908400098527886e0f7030069857d2e4169ee7aa"])
def test_something_that_is_not_an_address_is_refused(world: World, value: str) -> None:
    with pytest.raises(InvalidAddress):
        world.rail.normalize_address(value)


# ------------------------------------------------------------------------------------------------ fees


def test_a_native_payout_pays_its_exact_fee_out_of_the_amount(world: World) -> None:
    source, _ = world.funded_source()
    quote = world.run(world.rail.quote_payout(Payout(world.asset(ETH), source, DESTINATION, 10**16)))
    cap = world.base_fee() * 5 // 4 + PRIORITY_FEE_WEI
    assert quote.fee_base == NATIVE_GAS * cap
    assert quote.value_base == 10**16 - quote.fee_base


def test_a_token_payout_sends_the_whole_amount_and_no_fee_in_the_token(world: World) -> None:
    source, _ = world.funded_source(usdt=5_000_000)
    quote = world.run(world.rail.quote_payout(Payout(world.asset(USDT), source, DESTINATION, 2_000_000)))
    assert (quote.value_base, quote.fee_base) == (2_000_000, 0)


def test_a_payout_above_what_the_source_holds_is_refused_as_insufficient_funds(world: World) -> None:
    source, _ = world.funded_source(usdt=1_000_000)
    with pytest.raises(PayoutRefused) as refused:
        world.run(world.rail.quote_payout(Payout(world.asset(USDT), source, DESTINATION, 2_000_000)))
    assert refused.value.reason == "insufficient_funds"


def test_a_native_payout_no_larger_than_its_fee_is_refused(world: World) -> None:
    source, _ = world.funded_source()
    with pytest.raises(PayoutRefused) as refused:
        world.run(world.rail.quote_payout(Payout(world.asset(ETH), source, DESTINATION, NATIVE_GAS)))
    assert refused.value.reason == "amount_below_network_fee"


def test_the_balance_of_an_address_is_read_in_smallest_units(world: World) -> None:
    source, _ = world.funded_source(wei=123 * 10**15, usdt=7_000_000)
    assert world.run(world.rail.balance(world.asset(USDT), source)) == 7_000_000
    assert world.run(world.rail.balance(world.asset(ETH), source)) == 123 * 10**15


# ------------------------------------------------------------------------------------------------ payouts


def test_a_signed_payout_is_stored_with_its_reserved_nonce_before_any_broadcast(world: World) -> None:
    source, key = world.funded_source()
    signed, tx_id = world.run(world.sign(Payout(world.asset(ETH), source, DESTINATION, 10**16), key))

    async def stored() -> tuple[SignedTransaction | None, TreasuryNonce | None]:
        async with world.db.read() as session:
            row = (await session.exec(select(SignedTransaction).where(SignedTransaction.payout_id == tx_id))).first()
            return row, await session.get(TreasuryNonce, (NETWORK, source))

    row, counter = world.run(stored())
    assert row is not None and (row.raw, row.tx_hash, row.nonce) == (signed.raw, signed.tx_hash, 0)
    assert counter is not None and counter.next_nonce == 1
    assert world.chain.w3.eth.get_transaction_count(Web3.to_checksum_address(source)) == 0  # nothing sent yet


def test_a_followed_payout_is_paid_at_its_confirmations_with_the_fee_its_receipt_shows(world: World) -> None:
    source, key = world.funded_source()
    signed, tx_id = world.run(world.sign(Payout(world.asset(ETH), source, DESTINATION, 10**16), key))
    before = world.chain.w3.eth.get_balance(Web3.to_checksum_address(DESTINATION))
    world.run(world.rail.broadcast(signed))
    owner = Owner(world.db, {source: key})
    world.run(world.rail.follow(source, [world.pending(signed, tx_id)], owner))
    assert owner.results == []  # mined, not yet at the network's confirmations
    world.chain.mine(world.catalogue.networks[NETWORK].confirmations)
    world.run(world.rail.follow(source, [world.pending(signed, tx_id)], owner))
    receipt = world.chain.w3.eth.get_transaction_receipt(signed.tx_hash)
    fee = receipt["gasUsed"] * receipt["effectiveGasPrice"]
    assert owner.results == [PayoutResult(tx_id, Outcome.PAID, tx_hash=signed.tx_hash, raw=signed.raw,
                                          value_base=signed.value_base, fee_paid=fee, fee_base=fee)]
    assert world.chain.w3.eth.get_balance(Web3.to_checksum_address(DESTINATION)) - before == 10**16 - fee


def test_a_token_payout_tells_the_gas_paid_apart_from_the_amount(world: World) -> None:
    source, key = world.funded_source(usdt=5_000_000)
    signed, tx_id = world.run(world.sign(Payout(world.asset(USDT), source, DESTINATION, 2_000_000), key))
    world.run(world.rail.broadcast(signed))
    world.chain.mine(world.catalogue.networks[NETWORK].confirmations)
    owner = Owner(world.db, {source: key})
    world.run(world.rail.follow(source, [world.pending(signed, tx_id, USDT)], owner))
    [result] = owner.results
    assert (result.outcome, result.value_base, result.fee_base) == (Outcome.PAID, 2_000_000, None)
    assert result.fee_paid > 0


def test_a_payout_never_broadcast_is_sent_by_the_next_pass(world: World) -> None:
    source, key = world.funded_source()
    signed, tx_id = world.run(world.sign(Payout(world.asset(ETH), source, DESTINATION, 10**16), key))
    owner = Owner(world.db, {source: key})
    world.run(world.rail.follow(source, [world.pending(signed, tx_id)], owner))  # the crash case: stored, not sent
    # Anvil mines an automined transaction just after answering its broadcast: on a loaded machine the receipt can
    # lag the call by a moment, so wait for it rather than read it once.
    assert world.chain.w3.eth.wait_for_transaction_receipt(signed.tx_hash, timeout=30)["status"] == 1


def test_a_nonce_taken_by_a_transaction_we_did_not_sign_hands_the_payout_back_as_lost(world: World) -> None:
    source, key = world.funded_source()
    signed, tx_id = world.run(world.sign(Payout(world.asset(ETH), source, DESTINATION, 10**16), key))
    other = Account.sign_transaction({
        "to": Web3.to_checksum_address(source), "value": 0, "gas": NATIVE_GAS, "nonce": signed.sequence,
        "chainId": world.chain.w3.eth.chain_id, "maxFeePerGas": 10 * 10**9, "maxPriorityFeePerGas": 10**9,
        "type": 2}, key)
    world.chain.send_raw(other.raw_transaction)  # e.g. the merchant moving funds from the treasury by hand
    world.chain.mine(world.catalogue.networks[NETWORK].confirmations)
    owner = Owner(world.db, {source: key})
    world.run(world.rail.follow(source, [world.pending(signed, tx_id)], owner))
    assert owner.results == [PayoutResult(tx_id, Outcome.LOST)]


class FundedAfterItsFirstRead:
    """The rail's node, except that the source is funded (the operator topping it up, say) right after the sender
    first reads its balance: a second reading in the same decision would see money the first did not."""

    def __init__(self, node: Any, chain: Chain, address: str, wei: int) -> None:  # noqa: F811
        self._node, self._chain, self._address, self._wei = node, chain, address, wei
        self.reads = 0

    async def native_balance(self, address: str) -> int:
        value = int(await self._node.native_balance(address))
        self.reads += 1
        if self.reads == 1:
            rpc(self._chain, "anvil_setBalance", self._address, hex(self._wei))
        return value

    def __getattr__(self, name: str) -> Any:
        return getattr(self._node, name)


def test_a_refused_payout_whose_source_is_funded_while_the_sender_decides_is_sent_again_not_cancelled(
        world: World) -> None:
    rail = EvmRail(world.catalogue.networks[NETWORK], world.catalogue, world.db, stuck_seconds=0)
    source, key = world.funded_source()
    signed, tx_id = world.run(world.sign(Payout(world.asset(ETH), source, DESTINATION, 10**16), key))
    # Stored, never sent, and the source can now pay nothing, so sending it is refused: a stuck payout at the next
    # nonce, the case where the sender weighs cancelling it.
    rpc(world.chain, "anvil_setBalance", source, hex(0))
    node = FundedAfterItsFirstRead(rail.node, world.chain, source, 10**18)
    rail.node = node  # type: ignore[assignment]
    owner = Owner(world.db, {source: key})
    world.run(rail.follow(source, [world.pending(signed, tx_id)], owner))

    async def kinds() -> list[str]:
        async with world.db.read() as session:
            return list(await session.exec(select(SignedTransaction.kind).where(
                SignedTransaction.source_address == source)))

    assert node.reads == 1  # one reading decided both whether the payout is affordable and whether its cancel is
    assert world.run(kinds()) == ["refund"]  # no cancel: by that reading the source could not pay for one either
    world.run(rail.follow(source, [world.pending(signed, tx_id)], owner))  # the next pass, the source funded
    assert world.chain.w3.eth.wait_for_transaction_receipt(signed.tx_hash, timeout=30)["status"] == 1
    assert owner.results == []  # mined, not yet at its confirmations: nothing decided, nothing failed
