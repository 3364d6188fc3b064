"""The refund sender (scheduler job): Pending refunds are paid out through their network's rail; Processing ones are
followed by the rail to their end. Refunds own the refund rows and their state machine; the rail owns the
transaction (`server/rails/evm/payouts.py`: fees, nonces, replacement, cancel, gap fill, crash safety).

Fees. The merchant pays the network fee from the treasury. For a native-coin refund it comes out of the refund itself,
as DESIGN §5 says (`net_amount = amount - network_fee`): `network_fee` is the fee reserved when signed, then what the
receipt says was paid, also on the intent's payment_details. For a token the fee is paid in another asset: the
refund's network_fee is "0" in the token, the customer receives the whole amount, and the fee actually paid is shown
on the refund transaction as `fee_info`. That gas is the merchant's cost like any treasury transaction's
(server/treasury/gas.py): set aside before signing, out of the merchant's available native coin then coin sent by hand,
never paygate's fees. A token refund it does not cover waits Pending (logged `refund waits`, `insufficient_gas`) and
goes once the merchant funds it; meanwhile its merchant's refunds come after other merchants' in each pass, so a
merchant short of gas never holds the others' refunds back.

Never failed while it may still be paid: a refund fails only when it cannot be quoted before anything is signed, or
when the rail says its nonce went to our cancel or to its own reverted transaction. A nonce lost to a transaction we
did not sign (`Outcome.LOST`) signs the refund again with a fresh nonce.
"""

from __future__ import annotations

import logging
from decimal import Decimal

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import SelectOfScalar

from server.catalogue.catalogue import Asset, Catalogue
from server.clock import now_of
from server.customers import totals as customer_totals
from server.ids import new_id
from server.payment_intents import settle
from server.payment_intents.env import Env
from server.payment_intents.models import PaymentIntent
from server.rails.base import (
    AddressPayouts,
    ChainUnavailable,
    Outcome,
    Payout,
    PayoutQuote,
    PayoutRefused,
    PayoutResult,
    PendingPayout,
    SignedPayout,
)
from server.rails.registry import Rails
from server.refunds import service
from server.refunds.models import Refund, RefundTransaction
from server.refunds.states import Event, Status, TransactionStatus
from server.treasury import gas, nonces, signing_keys
from server.treasury.approvals import trail as approval_trail
from server.treasury.approvals.models import ApprovalActionKind, ApprovalStatus
from server.treasury.env import TreasuryEnv
from server.treasury.ledger.models import Account
from server.treasury.ledger.postings import Holder, Scope
from server.treasury.sweeps.service import native_of

log = logging.getLogger("paygate.refunds")
INTERVAL_SECONDS = 3
BATCH = 20
TX = TransactionStatus


async def _lock(session: AsyncSession, refund_id: str) -> Refund | None:
    return await session.get(Refund, refund_id, with_for_update=True, populate_existing=True)


async def _lock_tx(session: AsyncSession, tx_id: str) -> RefundTransaction | None:
    """The refund transaction if it is still pending, locked until the end of the transaction."""
    row = await session.get(RefundTransaction, tx_id, with_for_update=True, populate_existing=True)
    return row if row is not None and row.status == TX.PENDING else None


async def _finish(session: AsyncSession, row: RefundTransaction, status: TransactionStatus, **facts: object) -> None:
    """A pending refund transaction reaches its end (locked by `_lock_tx`)."""
    row.status, row.updated_at = status, now_of(session)
    for name, value in facts.items():
        setattr(row, name, value)
    session.add(row)
    await session.flush()


def _payout(refund: Refund, asset: Asset, treasury: str) -> Payout:
    """The customer bears the network fee when it is paid in the refunded asset (DESIGN §5)."""
    return Payout(asset=asset, source=treasury, destination=refund.refund_address,
                  amount_base=int(refund.amount.scaleb(asset.decimals)), fee_from_amount=True)


def _in_asset(base: int | None, decimals: int) -> Decimal:
    return Decimal(base).scaleb(-decimals) if base else Decimal(0)


def _record(session: AsyncSession, tx_id: str, refund: Refund, signed: SignedPayout, asset: Asset) -> None:
    now = now_of(session)
    session.add(RefundTransaction(
        id=tx_id, refund_id=refund.id, network=signed.network, source_address=signed.source,
        destination_address=refund.refund_address, nonce=signed.sequence, tx_hash=signed.tx_hash, raw=signed.raw,
        amount_base=Decimal(signed.value_base), decimals=asset.decimals, asset_id=asset.id, status=TX.PENDING,
        created_at=now, updated_at=now))


async def _sign(session: AsyncSession, payouts: AddressPayouts, quote: PayoutQuote, key: bytes, refund: Refund,
                asset: Asset, tx_id: str) -> SignedPayout:
    """Nonce reserved, transaction signed and stored with the refund transaction, before anything is broadcast."""
    return await payouts.sign_payout(session, quote, key, tx_id,
                                     lambda signed: _record(session, tx_id, refund, signed, asset))


async def fail(rt: TreasuryEnv, env: Env, refund_id: str, reason: str) -> None:
    """A Pending refund that cannot be signed: nothing of it was ever broadcast."""
    async with rt.db.transaction() as session:
        refund = await _lock(session, refund_id)
        if refund is not None and refund.status == Status.PENDING:
            await service.move(session, env, refund, Event.FAILED, failure_reason=reason)


def _gas_scope(rt: TreasuryEnv, refund: Refund) -> Scope | None:
    """Where the gas a refund pays apart from its amount is accounted: the network's native coin."""
    native = native_of(rt.catalogue, refund.network)
    return None if native is None else Scope(refund.merchant_id, refund.livemode, native.id, refund.network)


async def _gas_cost(rt: TreasuryEnv, refund: Refund, asset: Asset, treasury: str,
                    quote: PayoutQuote) -> gas.Cost | None:
    """What must be set aside before signing: a token refund's gas (a native-coin refund's comes out of its amount).
    Network I/O, outside any transaction."""
    native = native_of(rt.catalogue, refund.network)
    if native is None or asset.id == native.id or not quote.gas_base:
        return None
    scope = Scope(refund.merchant_id, refund.livemode, native.id, refund.network)
    return await gas.cost_of(rt, scope, native, treasury, Decimal(quote.gas_base).scaleb(-native.decimals))


async def submit(rt: TreasuryEnv, env: Env, payouts: AddressPayouts, refund: Refund, asset: Asset) -> bool:
    """Pending → Processing: quote from the chain, then set its gas aside, reserve the nonce, sign and record in one
    transaction, then broadcast. False when it waits for its gas."""
    key = await signing_keys.treasury(rt, refund.network, refund.merchant_id, refund.livemode)
    if key is None:
        await fail(rt, env, refund.id, "insufficient_funds")
        return True
    treasury, private_key = key
    try:
        quote = await payouts.quote_payout(_payout(refund, asset, treasury))
    except PayoutRefused as e:
        await fail(rt, env, refund.id, e.reason)
        return True
    cost = await _gas_cost(rt, refund, asset, treasury, quote)
    async with rt.db.transaction() as session:
        locked = await _lock(session, refund.id)
        if locked is None or locked.status != Status.PENDING:
            return True  # another sender took it
        tx_id = new_id("rtx")
        if cost is not None and not await gas.reserve(session, cost, tx_id):
            log.warning("refund waits", extra={"refund": refund.id, "reason": "insufficient_gas"})
            return False
        signed = await _sign(session, payouts, quote, private_key, locked, asset, tx_id)
        if locked.approval_status == ApprovalStatus.APPROVED:
            approval_trail.act(session, locked, ApprovalActionKind.SENT, "")  # its audit trail ends as a payout's
        await service.move(session, env, locked, Event.SUBMITTED, network_fee=_in_asset(quote.fee_base, asset.decimals))
    # Refused, timed out or lost: the transaction stays pending and the next pass follows its nonce.
    await payouts.broadcast(signed)
    return True


class RefundPayouts:
    """Refunds as the owner of payouts (`server.rails.base.PayoutOwner`): keys, waiting nonces, and outcomes."""

    def __init__(self, rt: TreasuryEnv, env: Env, rails: Rails) -> None:
        self.rt, self.env, self.rails = rt, env, rails

    async def key_of(self, network: str, source: str) -> bytes | None:
        """The private key of a treasury address, found through a refund it sent."""
        async with self.rt.db.read() as session:
            owner = (await session.exec(select(Refund.merchant_id, Refund.livemode)
                                        .join(RefundTransaction, col(RefundTransaction.refund_id) == col(Refund.id))
                                        .where(RefundTransaction.network == network,
                                               RefundTransaction.source_address == source).limit(1))).first()
        if owner is None:
            return None
        key = await signing_keys.treasury(self.rt, network, owner[0], owner[1])
        return key[1] if key is not None and key[0] == source else None

    async def waiting(self, network: str, source: str) -> set[int]:
        # The treasury also pays sweeps' gas top-ups and micro-deposits from the same nonces: no gaps either.
        return await nonces.waiting(self.rt.db, network, source)

    async def undecided(self, session: AsyncSession, payout_id: str) -> bool:
        return await _lock_tx(session, payout_id) is not None

    async def decided(self, result: PayoutResult) -> None:
        if result.outcome == Outcome.PAID:
            await self._paid(result)
        elif result.outcome == Outcome.FAILED:
            await self._close(result.payout_id, result.reason, result.fee_paid)
        else:
            await self._resign(result.payout_id)

    async def _gas(self, session: AsyncSession, row: RefundTransaction, refund: Refund, fee_paid: int) -> None:
        """Gas the treasury paid apart from the refund's amount (a token's, a cancel's, a revert's), with the receipt
        that settles it: out of what was set aside for it, the rest given back."""
        scope = _gas_scope(self.rt, refund)
        if scope is None:
            return
        fee = _in_asset(fee_paid, self.rt.catalogue.by_id[scope.asset_id].decimals)
        await gas.settle(session, scope, row.id, row.source_address, fee, {Holder(Account.OUTFLOW): fee})

    async def _close(self, tx_id: str, reason: str, fee_paid: int = 0) -> None:
        """The refund transaction's nonce went to a transaction of ours that pays nothing (cancel, revert): Failed.
        `fee_paid`: that transaction's gas, once mined."""
        async with self.rt.db.transaction() as session:
            row = await _lock_tx(session, tx_id)
            if row is None:
                return
            await _finish(session, row, TX.FAILED, fee_wei=Decimal(fee_paid))
            refund = await _lock(session, row.refund_id)
            if refund is not None:
                await self._gas(session, row, refund, fee_paid)
            if refund is not None and refund.status == Status.PROCESSING:
                await service.move(session, self.env, refund, Event.FAILED, failure_reason=reason)

    async def _paid(self, result: PayoutResult) -> None:
        async with self.rt.db.transaction() as session:
            row = await _lock_tx(session, result.payout_id)
            refund = await _lock(session, row.refund_id) if row is not None else None
            if row is None or refund is None or refund.status != Status.PROCESSING:
                return
            # Whichever of our transactions was mined is the refund's transaction.
            await _finish(session, row, TX.CONFIRMED, tx_hash=result.tx_hash, raw=result.raw,
                          amount_base=Decimal(result.value_base), fee_wei=Decimal(result.fee_paid))
            paid = Decimal(0)
            facts: dict[str, object] = {}
            if result.fee_base is not None:
                # The fee the receipt says was paid, out of the refund: what the customer got is amount - paid.
                paid = Decimal(result.fee_base).scaleb(-refund.decimals)
                facts["network_fee"] = paid
            else:
                await self._gas(session, row, refund, result.fee_paid)  # a token's gas, paid in the native coin
            await service.move(session, self.env, refund, Event.CONFIRMED, **facts)
            if refund.unexpected_funds:
                return  # returned funds that never paid anything: the intent and the customer's totals stay as they are
            await self._count_for_customer(session, refund)  # first: the intent's event below shows the customer
            await settle.refunded(session, self.env, refund.payment_intent_id, refund.amount, network_fee=paid)

    async def _count_for_customer(self, session: AsyncSession, refund: Refund) -> None:
        """The refund succeeded: its fiat value (asset amount times the charge's rate) joins the customer's totals."""
        intent = await session.get(PaymentIntent, refund.payment_intent_id)
        if intent is not None:
            await customer_totals.refunded(session, self.env.catalogue, intent.customer_id, intent.currency,
                                           refund.amount * refund.exchange_rate)

    async def _resign(self, tx_id: str) -> None:
        """The nonce went to a transaction we did not sign: nothing of ours can be mined. Sign again, fresh nonce."""
        async with self.rt.db.read() as session:
            tx = await session.get(RefundTransaction, tx_id)
            refund = await session.get(Refund, tx.refund_id) if tx is not None else None
        asset = self.rt.catalogue.by_id.get(tx.asset_id) if tx is not None else None
        payouts = self.rails.payouts(tx.network) if tx is not None else None
        if tx is None or asset is None or refund is None or payouts is None:
            return
        key = await signing_keys.treasury(self.rt, tx.network, refund.merchant_id, refund.livemode)
        if key is None:
            await self._close(tx.id, "insufficient_funds")
            return
        try:
            quote = await payouts.quote_payout(_payout(refund, asset, tx.source_address))
        except PayoutRefused as e:
            await self._close(tx.id, e.reason)
            return
        async with self.rt.db.transaction() as session:
            row = await _lock_tx(session, tx.id)
            locked = await _lock(session, tx.refund_id)
            if row is None or locked is None or locked.status != Status.PROCESSING:
                return
            before = await service.snapshot(session, self.env, locked)
            await _finish(session, row, TX.FAILED)
            new_tx = new_id("rtx")
            scope = _gas_scope(self.rt, locked)
            if scope is not None:  # nothing of the lost one was paid: its gas, set aside, is the new one's
                await gas.carry(session, scope, row.id, new_tx)
            signed = await _sign(session, payouts, quote, key[1], locked, asset, new_tx)
            locked.network_fee, locked.updated = _in_asset(quote.fee_base, asset.decimals), now_of(session)
            session.add(locked)
            await session.flush()
            await service.record(session, self.env, locked, "refund.updated", before)
        log.warning("refund nonce taken by another transaction; signed again",
                    extra={"refund": tx.refund_id, "old_nonce": tx.nonce, "nonce": signed.sequence})
        await payouts.broadcast(signed)


def _pending(tx: RefundTransaction) -> PendingPayout:
    return PendingPayout(id=tx.id, network=tx.network, asset_id=tx.asset_id, source=tx.source_address,
                         sequence=tx.nonce, tx_hash=tx.tx_hash, raw=tx.raw, value_base=int(tx.amount_base),
                         created_at=tx.created_at)


# A refund waiting for its approvers (or rejected) is never signed.
SENDABLE = (ApprovalStatus.NOT_REQUIRED, ApprovalStatus.APPROVED)
Waiter = tuple[str, bool, str]  # (merchant, livemode, network): whose refunds waited for their gas


class RefundJob:
    """The scheduler job. It remembers whose token refunds waited for gas at its last pass (a hint for ordering
    only: a restarted or second scheduler merely starts without it) and takes those after everyone else's refunds.
    Their native-coin refunds pay their fee out of their amount, so they never wait for gas and keep their place."""

    def __init__(self) -> None:
        self.waiting: set[Waiter] = set()

    async def run(self, rt: TreasuryEnv) -> None:
        env: Env = rt
        rails = rt.rails
        owner = RefundPayouts(rt, env, rails)
        async with rt.db.read() as session:
            pending = list(await session.exec(select(RefundTransaction).where(RefundTransaction.status == TX.PENDING)
                                              .order_by(col(RefundTransaction.nonce)).limit(BATCH)))
            new = list(await session.exec(_new_refunds(self.waiting, _natives(rt.catalogue))))
        await rails.follow([_pending(t) for t in pending], owner, "refund")
        waited: set[Waiter] = set()
        for refund in new:
            whose = (refund.merchant_id, refund.livemode, refund.network)
            asset = rt.catalogue.by_id.get(refund.asset_id)
            payouts = rails.payouts(refund.network)
            if asset is None or payouts is None or (whose in waited and asset.contract_address):
                continue  # one of their token refunds waited for gas this pass: the next would too
            try:
                if not await submit(rt, env, payouts, refund, asset):
                    waited.add(whose)
            except ChainUnavailable as e:
                log.warning("refund chain unavailable", extra={"network": refund.network, "error": str(e)})
        self.waiting = waited


def _natives(catalogue: Catalogue) -> list[str]:
    """The networks' native coins: their refunds pay their fee out of their amount."""
    return sorted(a.id for a in catalogue.by_id.values() if not a.contract_address)


def _new_refunds(waiting: set[Waiter], natives: list[str]) -> SelectOfScalar[Refund]:
    """Pending chain refunds that need no approval or have it, oldest first, the token refunds of merchants whose
    token refunds waited for gas last. Card refunds (no network) are their card provider's job; left in, Pending ones
    would crowd crypto out of the batch."""
    query = select(Refund).where(Refund.status == Status.PENDING, col(Refund.network) != "",
                                 col(Refund.approval_status).in_(SENDABLE))
    merchants = sorted({m for m, _, _ in waiting})
    if merchants:
        query = query.order_by(sa.and_(col(Refund.merchant_id).in_(merchants), col(Refund.asset_id).not_in(natives)))
    return query.order_by(col(Refund.sort_key)).limit(BATCH)


async def send_refunds(rt: TreasuryEnv) -> None:
    """One pass without memory of the last (tests, tools)."""
    await RefundJob().run(rt)
