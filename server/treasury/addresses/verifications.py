"""The treasury transfer sender (scheduler job): approved payouts (server/treasury/payouts/service.py), and micro-
deposits: each payout address waiting for verification (not yet proven by its signature, nor failed) receives its random
micro-amount of the network's native coin from the merchant's treasury, with the refund sender's discipline (nonce
reserved, signed transaction stored with its row before broadcast, followed by the rail to confirmation, sent again
after a crash, never sent twice). The treasury pays the network fee apart, so the exact amount arrives.

Once confirmed, the address's verification is `sent` (the merchant may give the amount, which an approver must then
back: server/treasury/addresses/service.py) and the ledger records the
amount and its fee leaving the treasury, out of what was set aside for them before signing (server/treasury/gas.py:
the merchant's available native coin, then gas coin sent by hand; never paygate's fees). A micro-deposit they do not
cover waits.
"""

from __future__ import annotations

import logging
from decimal import Decimal

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.ids import new_id
from server.rails.base import (
    ChainUnavailable,
    Outcome,
    Payout,
    PayoutRefused,
    PayoutResult,
    PendingPayout,
    SignedPayout,
)
from server.treasury import gas, nonces, signing_keys
from server.treasury.addresses import states as address_states
from server.treasury.addresses.models import MerchantAddress, VerificationStatus
from server.treasury.addresses.states import VerificationEvent
from server.treasury.env import TreasuryEnv
from server.treasury.ledger.models import Account
from server.treasury.ledger.postings import Holder, Scope
from server.treasury.models import OutgoingStatus, TreasuryTransfer
from server.treasury.payouts import service as payout_service
from server.treasury.sweeps.service import GasFunding

log = logging.getLogger("paygate.treasury.verifications")
INTERVAL_SECONDS = 5
BATCH = 20
TX = OutgoingStatus
KIND = "verification"


async def _lock(session: AsyncSession, address_id: str) -> MerchantAddress | None:
    return await session.get(MerchantAddress, address_id, with_for_update=True, populate_existing=True)


async def _lock_tx(session: AsyncSession, tx_id: str) -> TreasuryTransfer | None:
    row = await session.get(TreasuryTransfer, tx_id, with_for_update=True, populate_existing=True)
    return row if row is not None and row.status == TX.PENDING else None


def _record(session: AsyncSession, tx_id: str, row: MerchantAddress, asset_id: str, signed: SignedPayout) -> None:
    now = now_of(session)
    session.add(TreasuryTransfer(
        id=tx_id, owner_kind=KIND, owner_id=row.id, merchant_id=row.merchant_id, livemode=row.livemode,
        network=signed.network, asset_id=asset_id, source_address=signed.source, destination_address=row.address,
        nonce=signed.sequence, tx_hash=signed.tx_hash, raw=signed.raw, amount_base=Decimal(signed.value_base),
        status=TX.PENDING, created_at=now, updated_at=now))


async def send(rt: TreasuryEnv, row: MerchantAddress) -> None:
    """Pending → sending: quote, then sign and record with the address locked, then broadcast."""
    asset = rt.catalogue.by_id.get(row.verification_asset_id)
    payouts = rt.rails.payouts(row.network)
    treasury = await signing_keys.treasury(rt, row.network, row.merchant_id, row.livemode)
    if asset is None or payouts is None or treasury is None:
        return
    payout = Payout(asset=asset, source=treasury[0], destination=row.address,
                    amount_base=int(row.verification_amount.scaleb(asset.decimals)), fee_from_amount=False)
    try:
        quote = await payouts.quote_payout(payout)
    except PayoutRefused as e:
        log.warning("micro-deposit waits", extra={"address": row.id, "reason": e.reason})
        return
    # The micro-amount and its gas, set aside before signing: never out of paygate's fees (server/treasury/gas.py).
    # A rail without `GasFunding` (UTXO) prices the fee paid beside the amount in its quote.
    gas_base = await payouts.gas_needed(payout) if isinstance(payouts, GasFunding) else quote.gas_base
    cost = await gas.cost_of(rt, _scope(row, asset.id), asset, treasury[0],
                             Decimal(payout.amount_base + gas_base).scaleb(-asset.decimals))
    async with rt.db.transaction() as session:
        locked = await _lock(session, row.id)
        if locked is None or locked.deleted_at or not address_states.verification_allowed(
                locked.verification_status, VerificationEvent.SUBMITTED):
            return
        tx_id = new_id("ttx")
        covered = await gas.reserve(session, cost, tx_id)
        if covered:
            signed = await payouts.sign_payout(session, quote, treasury[1], tx_id,
                                               lambda s: _record(session, tx_id, locked, asset.id, s))
            locked.verification_status = address_states.next_verification(locked.verification_status,
                                                                          VerificationEvent.SUBMITTED)
            locked.updated_at = rt.clock.now()
            session.add(locked)
    if not covered:
        log.warning("micro-deposit waits", extra={"address": row.id, "reason": "insufficient_gas"})
        return
    await payouts.broadcast(signed)


def _scope(row: MerchantAddress | TreasuryTransfer, native_id: str) -> Scope:
    return Scope(row.merchant_id, row.livemode, native_id, row.network)


class TransferPayouts:
    """Treasury transfers (micro-deposits and payouts) as the owner of payouts (`server.rails.base.PayoutOwner`)."""

    def __init__(self, rt: TreasuryEnv) -> None:
        self.rt = rt

    async def key_of(self, network: str, source: str) -> bytes | None:
        async with self.rt.db.read() as session:
            found = (await session.exec(select(TreasuryTransfer.merchant_id, TreasuryTransfer.livemode)
                                        .where(TreasuryTransfer.network == network,
                                               TreasuryTransfer.source_address == source).limit(1))).first()
        if found is None:
            return None
        treasury = await signing_keys.treasury(self.rt, network, found[0], found[1])
        return treasury[1] if treasury is not None and treasury[0] == source else None

    async def waiting(self, network: str, source: str) -> set[int]:
        return await nonces.waiting(self.rt.db, network, source)

    async def undecided(self, session: AsyncSession, payout_id: str) -> bool:
        return await _lock_tx(session, payout_id) is not None

    async def decided(self, result: PayoutResult) -> None:
        async with self.rt.db.transaction() as session:
            row = await _lock_tx(session, result.payout_id)
            if row is None:
                return
            address = await _lock(session, row.owner_id) if row.owner_kind == KIND else None
            if row.owner_kind == KIND and address is None:
                return
            now = now_of(session)
            row.status, row.updated_at = (TX.CONFIRMED if result.outcome == Outcome.PAID else TX.FAILED), now
            if result.outcome == Outcome.PAID:
                row.tx_hash, row.raw = result.tx_hash, result.raw
            row.fee_wei = Decimal(result.fee_paid)  # a mined cancel or revert paid gas too
            session.add(row)
            if row.owner_kind == payout_service.KIND:
                await payout_service.decided(session, self.rt, row, result)
                return
            assert address is not None
            if result.outcome == Outcome.PAID:
                await self._post(session, row, result)
                event = VerificationEvent.CONFIRMED
            else:
                await self._gas(session, row, result)  # FAILED: a mined cancel's or revert's gas (LOST: none)
                # FAILED (reverted, our cancel mined) or LOST (its nonce went elsewhere): sent again, fresh nonce.
                event = VerificationEvent.DROPPED
            # Unless the address was proven by its signature or rejected meanwhile: then it stays as it is.
            if address_states.verification_allowed(address.verification_status, event):
                address.verification_status = address_states.next_verification(address.verification_status, event)
            address.updated_at = now
            session.add(row)
            session.add(address)

    async def _post(self, session: AsyncSession, row: TreasuryTransfer, result: PayoutResult) -> None:
        """Paid: the micro-amount and its gas, out of what was set aside for them."""
        asset = self.rt.catalogue.by_id[row.asset_id]
        sent = Decimal(result.value_base).scaleb(-asset.decimals)
        fee = Decimal(result.fee_paid).scaleb(-asset.decimals)  # the native coin pays its own fee
        await gas.settle(session, _scope(row, row.asset_id), row.id, row.source_address, sent + fee,
                         {Holder(Account.OUTFLOW): sent + fee})

    async def _gas(self, session: AsyncSession, row: TreasuryTransfer, result: PayoutResult) -> None:
        """FAILED by a mined cancel or revert: the micro-deposit's gas was paid, nothing was sent. LOST: nothing
        was paid. Either way, what was set aside goes back."""
        asset = self.rt.catalogue.by_id[row.asset_id]  # the native coin, which pays its own fee
        fee = Decimal(result.fee_paid).scaleb(-asset.decimals)
        await gas.settle(session, _scope(row, row.asset_id), row.id, row.source_address, fee,
                         {Holder(Account.OUTFLOW): fee})


def _pending(tx: TreasuryTransfer) -> PendingPayout:
    return PendingPayout(id=tx.id, network=tx.network, asset_id=tx.asset_id, source=tx.source_address,
                         sequence=tx.nonce, tx_hash=tx.tx_hash, raw=tx.raw, value_base=int(tx.amount_base),
                         created_at=tx.created_at)


async def send_verifications(rt: TreasuryEnv) -> None:
    owner = TransferPayouts(rt)
    async with rt.db.read() as session:
        pending = list(await session.exec(select(TreasuryTransfer).where(TreasuryTransfer.status == TX.PENDING)
                                          .order_by(col(TreasuryTransfer.nonce)).limit(BATCH)))
        new = list(await session.exec(select(MerchantAddress).where(
            MerchantAddress.verification_status == VerificationStatus.PENDING, MerchantAddress.deleted_at == 0)
            .order_by(col(MerchantAddress.sort_key)).limit(BATCH)))
    await rt.rails.follow([_pending(t) for t in pending], owner, "verification")
    for row in new:
        try:
            await send(rt, row)
        except ChainUnavailable as e:
            log.warning("verification chain unavailable", extra={"network": row.network, "error": str(e)})
    for payout in await payout_service.approved(rt):
        try:
            await payout_service.send(rt, payout)
        except ChainUnavailable as e:
            log.warning("payout chain unavailable", extra={"network": payout.network, "error": str(e)})
