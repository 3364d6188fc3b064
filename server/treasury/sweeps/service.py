"""Sweeps (scheduler job, DESIGN §15): confirmed, approved funds on deposit addresses move to the merchant's treasury
once they reach the asset's minimum. The ledger says what is where: a deposit address's `available` + `fees` of an
asset is what a sweep moves (never `frozen` or `pending` funds).

* Native coin: one payout of the whole amount, its network fee out of it (what arrives = amount - fee).
* Token: the treasury first sends the deposit address exactly the gas the token transfer needs (a `gas` transaction,
  only for what the address lacks), then the deposit address sends the tokens, their gas set aside there before
  signing. What the address lacks is judged by the ledger, by the gas rule below, never by the chain's balance:
  coin frozen by AML or still pending there is not the merchant's to spend on gas.

Crash safety is the refund sender's, through the same rail (`AddressPayouts`): every transaction is signed with a
nonce reserved in the database and stored with its sweep transaction row in one database transaction before it is
broadcast; the rail follows it to confirmation, sends it again after a crash, replaces it when stuck, and never
fails it while its nonce is unused. A sweep is claimed in the database: one open sweep per (network, address, asset),
created and advanced with its rows locked, so two scheduler processes never sign twice.

Every outcome is posted in the ledger in the transaction that records it: the gas top-up (treasury → deposit address,
plus its network fee to `outflow`), and the sweep (deposit address → treasury, the network fee to `outflow`).

Who pays a top-up (server/treasury/gas.py): the merchant's available native coin at the treasury, then gas coin sent
there by hand, set aside before it is signed; never paygate's fees held there. A top-up neither covers is not sent:
the sweep waits (`last_error` "insufficient_gas") and is tried again every pass. What reaches the deposit address
stays its payer's (available or gas there), so the leftover of the token transfer's gas is never the merchant's
available coin unless that coin paid for it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol, runtime_checkable

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.aml import AmlStatus
from server.catalogue.catalogue import Asset, Catalogue
from server.chains.models import ChainTransfer, TransferStatus
from server.clock import now_of
from server.config import Settings
from server.db.aggregates import exact_sum
from server.ids import new_id
from server.rails.base import (
    AddressPayouts,
    ChainUnavailable,
    ConsolidatingPayouts,
    Outcome,
    Payout,
    PayoutRefused,
    PayoutResult,
    PendingPayout,
    SignedPayout,
)
from server.treasury import gas, nonces, signing_keys
from server.treasury.env import TreasuryEnv
from server.treasury.ledger import postings
from server.treasury.ledger.listeners import treasury_of
from server.treasury.ledger.models import Account, CauseType, LedgerEntry, SweepDue
from server.treasury.ledger.postings import Holder, Scope
from server.treasury.models import OutgoingStatus
from server.treasury.sweeps import states as sweep_states
from server.treasury.sweeps.models import OPEN_SWEEPS, Sweep, SweepStatus, SweepTransaction, SweepTxKind
from server.treasury.sweeps.states import Event
from server.wallet.models import WalletAccount

log = logging.getLogger("paygate.treasury.sweeps")
INTERVAL_SECONDS = 5
BATCH = 20
DUE_BATCH = 500  # sweep_due rows a pass looks at; the rest wait for the next pass
TX = OutgoingStatus
# The sweep's move when one of its transactions is signed.
SIGNED = {SweepTxKind.GAS: Event.TOP_UP_SIGNED, SweepTxKind.SWEEP: Event.SWEEP_SIGNED}
DEFAULT_MINIMUM = Decimal("1")  # an asset `sweep_minimums` names neither by id nor by coin


def minimum(settings: Settings, asset: Asset) -> Decimal:
    """The least worth sweeping of `asset` (the `sweep_minimums` setting): by asset id, else by coin."""
    table = dict(settings.sweep_minimums)
    found = table.get(asset.id, table.get(asset.coin, table.get(asset.coin.upper())))
    return DEFAULT_MINIMUM if found is None else found


@runtime_checkable
class GasFunding(Protocol):
    """A rail whose token transfers pay gas in another asset: how much of it the source must hold (EVM)."""

    async def gas_needed(self, payout: Payout) -> int: ...


class FundedPayouts(AddressPayouts, GasFunding, Protocol):
    """A rail's payouts that can also tell the gas a token transfer needs (a type only: `GasFunding` is checked)."""


def native_of(catalogue: Catalogue, network: str) -> Asset | None:
    return next((a for a in catalogue.assets if a.network == network and not a.contract_address and not a.is_fiat),
                None)


def _units(base: int | Decimal, decimals: int) -> Decimal:
    return Decimal(base).scaleb(-decimals)


def _base(amount: Decimal, decimals: int) -> int:
    return int(amount.scaleb(decimals))


# ---------------------------------------------------------------------------------------------------- claiming


async def _treasuries(rt: TreasuryEnv, session: AsyncSession,
                      scopes: set[tuple[str, bool, str]]) -> dict[tuple[str, bool, str], str]:
    """Each (merchant, livemode, network)'s treasury address."""
    return {s: await treasury_of(rt, session, s[2], s[0], s[1]) for s in scopes}


Place = tuple[str, bool, str, str, str]  # (merchant, livemode, network, deposit address, asset)


@dataclass(frozen=True)
class Candidate:
    """A place worth sweeping, and the `sweep_due` rows that named it (deleted when its sweep opens)."""

    key: Place
    due_ids: tuple[str, ...]


async def _forget(rt: TreasuryEnv, ids: Sequence[str], parked: Sequence[Sequence[str]] = ()) -> None:
    """Drops the rows `ids`; each group in `parked` (one place's rows) shrinks to one row, sent to the back of the
    queue: a place that cannot be swept yet is looked at again later, behind everyone else."""
    ids = [*ids, *(i for group in parked for i in group[1:])]
    if ids or parked:
        async with rt.db.transaction() as session:
            if ids:
                await session.exec(sa.delete(SweepDue).where(col(SweepDue.id).in_(ids)))
            if parked:
                await session.exec(sa.update(SweepDue).where(col(SweepDue.id).in_([g[0] for g in parked]))
                                   .values(created_at=rt.clock.now() + 1))  # behind every row due now


async def candidates(rt: TreasuryEnv) -> list[Candidate]:
    """The places due for a look (`sweep_due`: credited since, or left by a failed sweep) whose available funds
    reach the asset's minimum and that no open sweep is moving yet: one SQL SUM … GROUP BY over those places' legs
    only, never the whole ledger. Places below the minimum, treasuries and unknown assets are dealt with: their
    rows go (a later credit writes a new one); a place an open sweep moves keeps its rows until the sweep ends; a
    place whose treasury is not available (live mode while no live mnemonic is configured) keeps one row, moved to
    the back, so that such places never fill the batch and hold up everyone else's sweeps."""
    async with rt.db.read() as session:
        due = list(await session.exec(select(SweepDue).order_by(col(SweepDue.created_at)).limit(DUE_BATCH)))
        if not due:
            return []
        ids: dict[Place, list[str]] = {}
        for row in due:
            ids.setdefault((row.merchant_id, row.livemode, row.network, row.address, row.asset_id), []).append(row.id)
        place = (col(LedgerEntry.merchant_id), col(LedgerEntry.livemode), col(LedgerEntry.network),
                 col(LedgerEntry.address), col(LedgerEntry.asset_id))
        query = sa.select(*place, exact_sum(LedgerEntry.amount)).where(
            col(LedgerEntry.account).in_([Account.AVAILABLE, Account.FEES]),
            sa.tuple_(*place).in_(list(ids)))
        rows = await session.exec(query.group_by(*place))  # type: ignore[call-overload]  # sqlmodel types 4 columns
        sums = {(m, live, network, address, asset_id): amount for m, live, network, address, asset_id, amount in rows}
        open_ = set(await session.exec(select(Sweep.network, Sweep.source_address, Sweep.asset_id).where(
            col(Sweep.status).in_(list(OPEN_SWEEPS)),
            sa.tuple_(col(Sweep.network), col(Sweep.source_address), col(Sweep.asset_id)).in_(
                [(k[2], k[3], k[4]) for k in ids]))))
        treasuries = await _treasuries(rt, session, {(k[0], k[1], k[2]) for k in ids})
    out: list[Candidate] = []
    done: list[str] = []
    parked: list[list[str]] = []
    for key, row_ids in ids.items():
        merchant_id, livemode, network, address, asset_id = key
        asset = rt.catalogue.by_id.get(asset_id)
        if (network, address, asset_id) in open_:
            continue  # looked at again once the sweep ends: what arrived meanwhile is swept then
        if asset is None or address == treasuries[(merchant_id, livemode, network)] \
                or sums.get(key, Decimal(0)) < minimum(rt.settings, asset):
            done.extend(row_ids)
        elif treasuries[(merchant_id, livemode, network)]:
            out.append(Candidate(key, tuple(row_ids)))
        else:
            parked.append(row_ids)
    await _forget(rt, done, parked)
    return out


async def claim(rt: TreasuryEnv, candidate: Candidate) -> Sweep | None:
    """A new Pending sweep of what the ledger holds at the candidate's address, unless one is open there (checked
    with the merchant's wallet account locked: two schedulers never open two). The place's `sweep_due` rows go in
    the same transaction."""
    merchant_id, livemode, network, address, asset_id = candidate.key
    asset = rt.catalogue.by_id[asset_id]
    async with rt.db.transaction() as session:
        await session.get(WalletAccount, (merchant_id, livemode), with_for_update=True, populate_existing=True)
        taken = (await session.exec(select(Sweep.id).where(
            Sweep.network == network, Sweep.source_address == address, Sweep.asset_id == asset_id,
            col(Sweep.status).in_(list(OPEN_SWEEPS))))).first()
        if taken is not None:
            return None
        held = (await postings.held_at(session, network, address)).get(asset_id, {})
        available, fees = held.get(Account.AVAILABLE, Decimal(0)), held.get(Account.FEES, Decimal(0))
        if available + fees < minimum(rt.settings, asset):
            return None
        treasury = await treasury_of(rt, session, network, merchant_id, livemode)
        if not treasury:
            return None
        now = rt.clock.now()
        sweep = Sweep(id=new_id("sw"), merchant_id=merchant_id, livemode=livemode, network=network,
                      asset_id=asset_id, decimals=asset.decimals, source_address=address,
                      destination_address=treasury, amount=available + fees, fee_amount=fees,
                      status=SweepStatus.PENDING, created=now, updated=now)
        session.add(sweep)
        await session.exec(sa.delete(SweepDue).where(
            col(SweepDue.id).in_(list(candidate.due_ids))))
    log.info("sweep opened", extra={"sweep": sweep.id, "asset": asset_id, "amount": str(sweep.amount)})
    return sweep


# ---------------------------------------------------------------------------------------------------- signing


async def _lock(session: AsyncSession, sweep_id: str) -> Sweep | None:
    return await session.get(Sweep, sweep_id, with_for_update=True, populate_existing=True)


async def _in_flight(session: AsyncSession, sweep_id: str) -> bool:
    return (await session.exec(select(SweepTransaction.id).where(
        SweepTransaction.sweep_id == sweep_id, SweepTransaction.status == TX.PENDING))).first() is not None


async def _note(rt: TreasuryEnv, sweep_id: str, error: str) -> None:
    """A pass that could not sign (refused by the rail): kept open, tried again next pass. The operator is warned
    once per change of reason (the sweep's `last_error`, so once across every scheduler), each pass after that is
    a DEBUG line: a sweep waiting for gas for a week must not write a WARNING every 5 s."""
    changed = False
    async with rt.db.transaction() as session:
        sweep = await _lock(session, sweep_id)
        if sweep is not None and sweep.last_error != error:
            sweep.last_error, sweep.updated = error, rt.clock.now()
            session.add(sweep)
            changed = True
    log.log(logging.WARNING if changed else logging.DEBUG, "sweep waits", extra={"sweep": sweep_id, "reason": error})


def _record(session: AsyncSession, tx_id: str, sweep: Sweep, kind: SweepTxKind, asset: Asset,
            destination: str, signed: SignedPayout) -> None:
    now = now_of(session)
    session.add(SweepTransaction(
        id=tx_id, sweep_id=sweep.id, kind=kind, network=signed.network, asset_id=asset.id,
        source_address=signed.source, destination_address=destination, nonce=signed.sequence,
        tx_hash=signed.tx_hash, raw=signed.raw, amount_base=Decimal(signed.value_base), status=TX.PENDING,
        created_at=now, updated_at=now))


async def _sign_and_send(rt: TreasuryEnv, payouts: AddressPayouts, sweep: Sweep, kind: SweepTxKind, payout: Payout,
                         key: bytes, cost: gas.Cost | None = None) -> bool:
    """Quote, then in one transaction: re-check the sweep under its lock, set `cost` aside (`gas.reserve`: a top-up's
    at the treasury, a token transfer's at the deposit address), reserve the nonce, sign, record; then broadcast.
    False when the rail refused or the cost is not covered (noted on the sweep: it waits)."""
    try:
        quote = await payouts.quote_payout(payout)
    except PayoutRefused as e:
        await _note(rt, sweep.id, e.reason)
        return False
    async with rt.db.transaction() as session:
        locked = await _lock(session, sweep.id)
        if locked is None or locked.status != sweep.status or await _in_flight(session, sweep.id):
            return False  # another sender moved it
        tx_id = new_id("swtx")
        covered = cost is None or await gas.reserve(session, cost, tx_id)
        if covered:
            signed = await payouts.sign_payout(
                session, quote, key, tx_id,
                lambda s: _record(session, tx_id, locked, kind, payout.asset, payout.destination, s))
            sweep_states.move(locked, SIGNED[kind], {"last_error": ""}, rt.clock.now())
            session.add(locked)
    if not covered:
        # Neither the merchant's available native coin nor gas coin sent by hand covers the cost: paygate's fees
        # never do, nor frozen or pending coin (server/treasury/gas.py). Tried again next pass.
        await _note(rt, sweep.id, "insufficient_gas")
        return False
    await payouts.broadcast(signed)
    return True


async def _spendable(rt: TreasuryEnv, cost: gas.Cost) -> int:
    """What the ledger lets a transaction's gas use at its paying address, in base units (`gas.spendable`)."""
    async with rt.db.read() as session:
        return _base(await gas.spendable(session, cost), cost.decimals)


async def _top_up(rt: TreasuryEnv, payouts: FundedPayouts, sweep: Sweep, native: Asset, lacking: int) -> None:
    """Signs the treasury's gas top-up of `lacking` to the sweep's deposit address, its cost set aside there."""
    treasury = await signing_keys.treasury(rt, sweep.network, sweep.merchant_id, sweep.livemode)
    if treasury is None or treasury[0] != sweep.destination_address:
        await _note(rt, sweep.id, "no_treasury")
        return
    top_up = Payout(asset=native, source=treasury[0], destination=sweep.source_address, amount_base=lacking,
                    fee_from_amount=False)
    most = _units(lacking + await payouts.gas_needed(top_up), native.decimals)
    cost = await gas.cost_of(rt, Scope(sweep.merchant_id, sweep.livemode, native.id, sweep.network), native,
                             treasury[0], most)
    await _sign_and_send(rt, payouts, sweep, SweepTxKind.GAS, top_up, treasury[1], cost)


async def _sweepable_coins(rt: TreasuryEnv, sweep: Sweep) -> tuple[tuple[str, int], ...]:
    """The deposit address's confirmed, AML-approved transfers of the asset: on a rail that spends coins, the only
    outputs a sweep may move (a frozen or pending coin at the same address stays where it is)."""
    async with rt.db.read() as session:
        rows = await session.exec(select(ChainTransfer.tx_hash, ChainTransfer.log_index).where(
            ChainTransfer.network == sweep.network, ChainTransfer.to_address == sweep.source_address,
            ChainTransfer.asset_id == sweep.asset_id, ChainTransfer.status == TransferStatus.CONFIRMED,
            ChainTransfer.aml_status == AmlStatus.APPROVED))
        return tuple(sorted((tx_hash, index) for tx_hash, index in rows))


async def advance(rt: TreasuryEnv, sweep: Sweep) -> None:
    """Signs the sweep's next transaction: for a token, a gas top-up while the deposit address lacks gas; then the
    sweep itself. Called for open sweeps with no transaction in flight."""
    asset = rt.catalogue.by_id.get(sweep.asset_id)
    payouts, balances = rt.rails.payouts(sweep.network), rt.rails.balances(sweep.network)
    if asset is None or payouts is None or balances is None:
        return
    source = sweep.source_address
    payout = Payout(asset=asset, source=source, destination=sweep.destination_address,
                    amount_base=_base(sweep.amount, sweep.decimals), fee_from_amount=True,
                    coins=await _sweepable_coins(rt, sweep))
    cost: gas.Cost | None = None  # a native sweep pays its fee out of its amount: nothing to set aside
    if asset.contract_address:
        native = native_of(rt.catalogue, sweep.network)
        if native is None or not isinstance(payouts, GasFunding):
            return
        needed = await payouts.gas_needed(payout)
        cost = await gas.cost_of(rt, Scope(sweep.merchant_id, sweep.livemode, native.id, sweep.network), native,
                                 source, _units(needed, native.decimals))
        # Judged by the ledger, not the chain's balance: coin frozen by AML, still pending, or otherwise not the
        # merchant's to spend may sit at the deposit address, and gas must never spend it (server/treasury/gas.py).
        lacking = needed - await _spendable(rt, cost)
        if lacking > 0:
            await _top_up(rt, payouts, sweep, native, lacking)
            return
    key = await signing_keys.deposit(rt, sweep.network, sweep.merchant_id, sweep.livemode, source)
    if key is None:
        await _note(rt, sweep.id, "unknown_deposit_address")
        return
    await _sign_and_send(rt, payouts, sweep, SweepTxKind.SWEEP, payout, key, cost)


async def consolidate(rt: TreasuryEnv, sweeps: Sequence[Sweep]) -> set[str]:
    """Where the network's rail consolidates (`ConsolidatingPayouts`: UTXO), the native-coin sweeps of one merchant,
    mode and network due now are paid by one transaction, one fee shared by the inputs each brings; the ids it took.
    A group the rail refuses (coins changed, too many inputs) is left to `advance`, one sweep at a time."""
    groups: dict[tuple[str, bool, str, str, str], list[Sweep]] = {}
    for sweep in sweeps:
        if sweep.status == SweepStatus.PENDING:
            groups.setdefault((sweep.merchant_id, sweep.livemode, sweep.network, sweep.asset_id,
                               sweep.destination_address), []).append(sweep)
    taken: set[str] = set()
    for (_, _, network, asset_id, _), group in groups.items():
        rail, asset = rt.rails.payouts(network), rt.catalogue.by_id.get(asset_id)
        if len(group) < 2 or asset is None or asset.contract_address or not isinstance(rail, ConsolidatingPayouts):
            continue
        if await _consolidate(rt, rail, asset, group):
            taken.update(s.id for s in group)
    return taken


async def _consolidate(rt: TreasuryEnv, rail: ConsolidatingPayouts, asset: Asset, group: Sequence[Sweep]) -> bool:
    first = group[0]
    keys = [await signing_keys.deposit(rt, s.network, s.merchant_id, s.livemode, s.source_address) for s in group]
    if any(k is None for k in keys):
        return False
    parts = [Payout(asset=asset, source=s.source_address, destination=s.destination_address,
                    amount_base=_base(s.amount, s.decimals), fee_from_amount=True,
                    coins=await _sweepable_coins(rt, s)) for s in group]
    try:
        quote = await rail.quote_consolidation(parts)
    except PayoutRefused as e:
        log.info("sweeps not consolidated", extra={"network": first.network, "reason": e.reason,
                                                   "sweeps": len(group)})
        return False
    tx_ids = [new_id("swtx") for _ in group]
    async with rt.db.transaction() as session:
        locked: dict[str, Sweep] = {}
        for sweep_id in sorted(s.id for s in group):  # in one order: two schedulers never deadlock
            row = await _lock(session, sweep_id)
            if row is not None and row.status == SweepStatus.PENDING and not await _in_flight(session, sweep_id):
                locked[sweep_id] = row
        if len(locked) != len(group):
            return False  # another sender moved one of them: the next pass looks again

        def record(i: int, signed: SignedPayout) -> None:
            _record(session, tx_ids[i], locked[group[i].id], SweepTxKind.SWEEP, asset, group[i].destination_address,
                    signed)

        signed = await rail.sign_consolidation(session, quote, [k for k in keys if k is not None], tx_ids, record)
        for row in locked.values():
            sweep_states.move(row, SIGNED[SweepTxKind.SWEEP], {"last_error": ""}, rt.clock.now())
            session.add(row)
    log.info("sweeps consolidated", extra={"network": first.network, "sweeps": len(group), "tx": signed[0].tx_hash})
    await rail.broadcast(signed[0])  # every part carries the same transaction
    return True


# ---------------------------------------------------------------------------------------------------- outcomes


async def _lock_tx(session: AsyncSession, tx_id: str) -> SweepTransaction | None:
    row = await session.get(SweepTransaction, tx_id, with_for_update=True, populate_existing=True)
    return row if row is not None and row.status == TX.PENDING else None


def _finish(session: AsyncSession, row: SweepTransaction, status: OutgoingStatus, **facts: object) -> None:
    row.status, row.updated_at = status, now_of(session)
    for name, value in facts.items():
        setattr(row, name, value)
    session.add(row)


class SweepPayouts:
    """Sweeps as the owner of payouts (`server.rails.base.PayoutOwner`)."""

    def __init__(self, rt: TreasuryEnv) -> None:
        self.rt = rt

    async def key_of(self, network: str, source: str) -> bytes | None:
        async with self.rt.db.read() as session:
            found = (await session.exec(select(SweepTransaction.kind, Sweep.merchant_id, Sweep.livemode)
                                        .join(Sweep, col(Sweep.id) == col(SweepTransaction.sweep_id))
                                        .where(Sweep.network == network,
                                               SweepTransaction.source_address == source).limit(1))).first()
        if found is None:
            return None
        kind, merchant_id, livemode = found
        if kind == SweepTxKind.GAS:
            treasury = await signing_keys.treasury(self.rt, network, merchant_id, livemode)
            return treasury[1] if treasury is not None and treasury[0] == source else None
        return await signing_keys.deposit(self.rt, network, merchant_id, livemode, source)

    async def waiting(self, network: str, source: str) -> set[int]:
        return await nonces.waiting(self.rt.db, network, source)

    async def undecided(self, session: AsyncSession, payout_id: str) -> bool:
        return await _lock_tx(session, payout_id) is not None

    async def decided(self, result: PayoutResult) -> None:
        if result.outcome == Outcome.PAID:
            await self._paid(result)
        else:
            await self._closed(result)

    async def _closed(self, result: PayoutResult) -> None:
        """FAILED: the sweep fails (nothing moved; a later pass opens a new one for what is still there). LOST: the
        transaction can never be mined; the sweep goes back a step and the next pass signs it again."""
        async with self.rt.db.transaction() as session:
            row = await _lock_tx(session, result.payout_id)
            sweep = await _lock(session, row.sweep_id) if row is not None else None
            if row is None or sweep is None:
                return
            _finish(session, row, TX.FAILED, fee_wei=Decimal(result.fee_paid))
            native = native_of(self.rt.catalogue, sweep.network)
            gas_scope = Scope(sweep.merchant_id, sweep.livemode, native.id, sweep.network) if native else None
            if gas_scope is not None:
                await gas.release(session, gas_scope, row.id)  # a top-up's reservation (LOST: nothing was paid)
            if result.outcome == Outcome.FAILED:
                sweep_states.move(sweep, Event.FAILED, {"failure_reason": result.reason or "failed"}, now_of(session))
                # Its funds are still there: the next pass looks at the place again and opens a new sweep.
                postings.due(session, Scope(sweep.merchant_id, sweep.livemode, sweep.asset_id, sweep.network),
                           sweep.source_address)
                if native is not None and gas_scope is not None and result.fee_paid:
                    # Our cancel or a reverted transaction was mined: its source paid the gas all the same.
                    fee = _units(result.fee_paid, native.decimals)
                    if row.kind == SweepTxKind.GAS:
                        await gas.settle(session, gas_scope, row.id, row.source_address, fee,
                                         {Holder(Account.OUTFLOW): fee})
                    else:
                        await postings.network_fee(session, gas_scope, CauseType.SWEEP, sweep.id, row.source_address,
                                                 fee)
                    sweep.network_fee += fee
            else:
                sweep_states.move(sweep, Event.LOST, {}, now_of(session))  # pending: signed again next pass
            session.add(sweep)

    async def _paid(self, result: PayoutResult) -> None:
        async with self.rt.db.transaction() as session:
            row = await _lock_tx(session, result.payout_id)
            sweep = await _lock(session, row.sweep_id) if row is not None else None
            if row is None or sweep is None or sweep.status not in OPEN_SWEEPS:
                return
            _finish(session, row, TX.CONFIRMED, tx_hash=result.tx_hash, raw=result.raw,
                    amount_base=Decimal(result.value_base), fee_wei=Decimal(result.fee_paid))
            native = native_of(self.rt.catalogue, sweep.network)
            assert native is not None, "a network that signs has a native coin"
            fee = _units(result.fee_paid, native.decimals)
            gas_scope = Scope(sweep.merchant_id, sweep.livemode, native.id, sweep.network)
            a, t = sweep.source_address, sweep.destination_address
            if row.kind == SweepTxKind.GAS:
                # Paid out of what was set aside for it; what reached the deposit address stays its payer's there.
                await gas.settle_top_up(session, gas_scope, row.id, t, a, _units(result.value_base, native.decimals),
                                        fee)
                sweep.network_fee += fee
                sweep_states.move(sweep, Event.TOP_UP_CONFIRMED, {}, now_of(session))  # still funding: the sweep next
            else:
                scope = Scope(sweep.merchant_id, sweep.livemode, sweep.asset_id, sweep.network)
                arrived = _units(result.value_base, sweep.decimals)
                if sweep.asset_id == native.id:
                    # The fee came out of the amount; whatever the fee did not take and did not arrive stays there.
                    left = sweep.amount - arrived - fee
                    await postings.post(session, scope, CauseType.SWEEP, sweep.id, {
                        Holder(Account.AVAILABLE, a): -(sweep.amount - sweep.fee_amount) + left,
                        Holder(Account.FEES, a): -sweep.fee_amount,
                        Holder(Account.AVAILABLE, t): arrived - sweep.fee_amount,
                        Holder(Account.FEES, t): sweep.fee_amount, Holder(Account.OUTFLOW): fee})
                else:
                    await postings.post(session, scope, CauseType.SWEEP, sweep.id, {
                        Holder(Account.AVAILABLE, a): -(sweep.amount - sweep.fee_amount),
                        Holder(Account.FEES, a): -sweep.fee_amount,
                        Holder(Account.AVAILABLE, t): arrived - sweep.fee_amount,
                        Holder(Account.FEES, t): sweep.fee_amount})
                    # Out of what was set aside at the deposit address when it was signed, given back first.
                    await gas.release(session, gas_scope, row.id)
                    await postings.network_fee(session, gas_scope, CauseType.SWEEP, sweep.id, a, fee)
                sweep.network_fee += fee
                sweep_states.move(sweep, Event.SWEEP_CONFIRMED, {"tx_hash": result.tx_hash}, now_of(session))
            session.add(sweep)
        log.info("sweep transaction confirmed", extra={"sweep": sweep.id, "kind": row.kind, "tx": result.tx_hash})


def _pending(tx: SweepTransaction) -> PendingPayout:
    return PendingPayout(id=tx.id, network=tx.network, asset_id=tx.asset_id, source=tx.source_address,
                         sequence=tx.nonce, tx_hash=tx.tx_hash, raw=tx.raw, value_base=int(tx.amount_base),
                         created_at=tx.created_at)


# ---------------------------------------------------------------------------------------------------- the job


async def _follow(rt: TreasuryEnv, owner: SweepPayouts, pending: Sequence[SweepTransaction]) -> None:
    await rt.rails.follow([_pending(t) for t in pending], owner, "sweep")


async def send_sweeps(rt: TreasuryEnv) -> None:
    """One pass: follow what is in flight, sign the next step of open sweeps, open new ones. With sweeps turned off
    (`sweeps = false`) no new sweep opens; those already open are carried to their end."""
    owner = SweepPayouts(rt)
    async with rt.db.read() as session:
        pending = list(await session.exec(select(SweepTransaction).where(SweepTransaction.status == TX.PENDING)
                                          .order_by(col(SweepTransaction.nonce)).limit(BATCH)))
    await _follow(rt, owner, pending)
    async with rt.db.read() as session:
        in_flight = set(await session.exec(select(SweepTransaction.sweep_id)
                                           .where(SweepTransaction.status == TX.PENDING)))
        open_ = [s for s in await session.exec(select(Sweep).where(col(Sweep.status).in_(list(OPEN_SWEEPS)))
                                               .order_by(col(Sweep.sort_key)).limit(BATCH))
                 if s.id not in in_flight]
    if not rt.settings.sweeps:
        return
    for found in await candidates(rt):
        sweep = await claim(rt, found)
        if sweep is not None:
            open_.append(sweep)
    try:
        consolidated = await consolidate(rt, open_)
    except ChainUnavailable as e:
        log.warning("sweep chain unavailable", extra={"error": str(e)})
        consolidated = set()
    for sweep in open_:
        if sweep.id in consolidated:
            continue
        try:
            await advance(rt, sweep)
        except ChainUnavailable as e:
            log.warning("sweep chain unavailable", extra={"network": sweep.network, "error": str(e)})
