"""Payouts on an EVM chain: a payout of amount X of asset A from the key of address K to address D, sent with the
discipline that makes it safe to retry after any failure (the refund sender's, DESIGN §6 and §15).

Fees. For the native coin with `fee_from_amount` the fee comes out of the payout (`net = amount - network_fee`): the
transaction is signed with its tip equal to its fee cap, so the price it pays is exactly the cap and the destination
receives amount - gas * cap; once mined, the fee is what the receipt says was paid (`gasUsed * effectiveGasPrice`).
For a token the gas is paid in the native coin, which cannot be taken out of a token amount: the whole amount
arrives, and the gas paid is told apart (`PayoutResult.fee_paid`).

Nonces. A payout is never failed while its nonce is unused on chain: a refused or ambiguous broadcast (an error, a
timeout, a lost connection) may still be mined, and failing it would let the owner pay again, twice. The chain decides:
* a receipt of any transaction we signed for the payout's nonce (the first one, a fee-bumped replacement or a
  cancel) decides the payout, once confirmed;
* a nonce used, at confirmation depth, by a transaction we did not sign means ours can never be mined: the owner
  is told (`Outcome.LOST`) and signs it again with a fresh nonce ("nonce too low" alone never counts as sent);
* a transaction the node does not know is sent again; one the node refuses as underpriced, or one pending longer
  than `stuck_seconds`, is replaced with fees raised by at least 12.5% (same nonce), and every signed hash is kept
  so that whichever is mined counts;
* a payout the source cannot pay but whose cancel it can (0-value transfer to itself, same nonce) is cancelled
  after `stuck_seconds`, so the payouts queued behind its nonce go out; it fails once the cancel is mined;
* a nonce reserved in the database but unused on chain and waiting on no undecided payout (a gap: the chain lost
  a transaction) is filled with a 0-value transfer to the source itself, so the payouts after it are mined.

Crash safety. The nonce is reserved in `treasury_nonces` and the signed transaction with its hash is stored in the
owner's database transaction that records the payout (or here, with a replacement), before anything is broadcast.
A sender that dies after that commit finds the transaction on its next pass and sends the same bytes again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.catalogue.catalogue import Asset, Catalogue, Network
from server.db import Database
from server.db.sets import on_postgres
from server.ids import new_id
from server.rails.base import (
    Outcome,
    Payout,
    PayoutOwner,
    PayoutQuote,
    PayoutRefused,
    PayoutResult,
    PendingPayout,
    SignedPayout,
)
from server.rails.evm import transactions as txs
from server.rails.evm.models import SignedKind, SignedTransaction, TreasuryNonce
from server.rails.evm.node import Node, NonceTaken, Rejected, Underpriced

log = logging.getLogger("paygate.rails.evm")
GAP_FILL_MAX = 20  # nonces filled per source and pass
K = SignedKind


@dataclass(frozen=True)
class Draft:
    """`PayoutQuote.detail` on this rail: what to sign, and the node's next nonce for the source when quoted."""

    unsigned: txs.Unsigned
    fees: txs.Fees
    chain_nonce: int


@dataclass(frozen=True)
class ChainView:
    """One source's nonces read once per pass, before any receipt."""

    head: int
    latest: int  # nonces used in the latest block
    settled: int  # nonces used at the confirmation depth: no re-organisation will give them back


def _native(asset: Asset | None) -> bool:
    return asset is not None and not asset.contract_address


class EvmPayouts:
    pays_back_senders = True  # the account that paid holds its key

    def __init__(self, network: Network, catalogue: Catalogue, db: Database, *, stuck_seconds: int) -> None:
        self.network = network
        self.catalogue = catalogue
        self.db = db
        self.stuck_seconds = stuck_seconds
        self.node = Node(network.rpc_url)

    # ------------------------------------------------------------------------------------------------ new payouts

    async def quote_payout(self, payout: Payout) -> PayoutQuote:
        asset, source = payout.asset, payout.source
        exact = _native(asset) and payout.fee_from_amount
        fees = await self.node.fees(exact=exact)
        unsigned = await self.node.unsigned(asset, source, payout.destination, payout.amount_base)
        gas_cost = unsigned.gas * fees.max_fee_per_gas
        fee_base = 0
        if exact:
            if payout.amount_base <= gas_cost:
                raise PayoutRefused("amount_below_network_fee")
            fee_base = gas_cost
            unsigned = replace(unsigned, value=payout.amount_base - gas_cost)
        native_held = await self.node.native_balance(source)
        held = native_held if _native(asset) else await self.node.balance(asset, source)
        native_needed = gas_cost + (payout.amount_base if _native(asset) and not exact else 0)
        if held < payout.amount_base or native_held < native_needed:
            raise PayoutRefused("insufficient_funds")
        chain_nonce = await self.node.nonce_at(source, "pending")
        value = unsigned.value if _native(asset) else payout.amount_base
        return PayoutQuote(payout, value_base=value, fee_base=fee_base, detail=Draft(unsigned, fees, chain_nonce),
                           gas_base=gas_cost)

    async def gas_needed(self, payout: Payout) -> int:
        """The native coin (wei) the source must hold to pay the payout's gas at today's fees, as `quote_payout` will
        price it: what a token sweep's gas top-up sends to a deposit address first (DESIGN §15)."""
        fees = await self.node.fees()
        unsigned = await self.node.unsigned(payout.asset, payout.source, payout.destination, payout.amount_base)
        return unsigned.gas * fees.max_fee_per_gas

    async def sign_payout(self, session: AsyncSession, quote: PayoutQuote, key: bytes, payout_id: str,
                          record: Callable[[SignedPayout], None]) -> SignedPayout:
        draft = quote.detail
        assert isinstance(draft, Draft), "a quote of another rail"
        source = quote.payout.source
        nonce = await self._reserve_nonce(session, source, draft.chain_nonce)
        raw, tx_hash = txs.sign(key, self.network.chain_id, nonce, draft.unsigned, draft.fees)
        signed = SignedPayout(network=self.network.id, source=source, sequence=nonce, tx_hash=tx_hash, raw=raw,
                              value_base=quote.value_base)
        record(signed)
        await session.flush()  # the owner's row first: the signed transaction refers to it
        session.add(self._signed(source, nonce, K.PAYOUT, raw, tx_hash, quote.value_base, payout_id))
        await session.flush()
        return signed

    async def signed_here(self, session: AsyncSession, tx_hashes: Sequence[str]) -> bool:
        found = (await session.exec(select(col(SignedTransaction.id)).where(
            SignedTransaction.network == self.network.id,
            col(SignedTransaction.tx_hash).in_(list(tx_hashes))).limit(1))).first()
        return found is not None

    async def broadcast(self, signed: SignedPayout) -> None:
        await self._broadcast(signed.raw, signed.tx_hash)

    async def _reserve_nonce(self, session: AsyncSession, address: str, chain_nonce: int) -> int:
        # The counter row exists before it is locked: two first reservations of a source (two senders, or two
        # scheduler processes) would otherwise both find none and both insert it, one failing on the key. This way
        # the second one's insert waits for the first's commit, does nothing, and its lock waits likewise.
        table = TreasuryNonce.__table__  # type: ignore[attr-defined]
        insert = postgresql.insert if on_postgres(session) else sqlite.insert
        await session.exec(insert(table).values(network=self.network.id, address=address, next_nonce=0)
                           .on_conflict_do_nothing(index_elements=["network", "address"]))
        row = await session.get(TreasuryNonce, (self.network.id, address), with_for_update=True,
                                populate_existing=True)
        assert row is not None, "inserted above"
        # The node's count covers transactions sent from the source outside paygate (e.g. the merchant moving funds).
        nonce = max(row.next_nonce, chain_nonce)
        row.next_nonce = nonce + 1
        session.add(row)
        return nonce

    def _signed(self, source: str, nonce: int, kind: SignedKind, raw: str, tx_hash: str, value_base: int,
                payout_id: str | None) -> SignedTransaction:
        return SignedTransaction(id=new_id("stx"), network=self.network.id, source_address=source, nonce=nonce,
                                 payout_id=payout_id, kind=kind, tx_hash=tx_hash, raw=raw,
                                 value_base=Decimal(value_base), created_at=self.db.clock.now())

    async def _broadcast(self, raw: str, what: str) -> None:
        """A broadcast whose refusal is only logged: the next pass reads the nonce and receipts and decides."""
        try:
            await self.node.broadcast(raw)
        except Rejected as e:
            log.warning("treasury transaction refused", extra={"what": what, "error": str(e)})

    # ------------------------------------------------------------------------------------------------ following

    async def follow(self, source: str, pending: list[PendingPayout], owner: PayoutOwner) -> None:
        head = await self.node.head()
        settled = await self.node.nonce_at(source, max(head - self.network.confirmations + 1, 0))
        latest = await self.node.nonce_at(source, "latest")
        view = ChainView(head=head, latest=latest, settled=settled)
        for payout in pending:
            await self._follow_one(payout, view, owner)
        await self._fill_gaps(source, view, owner)

    async def _follow_one(self, payout: PendingPayout, view: ChainView, owner: PayoutOwner) -> None:
        """Decided at the confirmation threshold (paid, or failed when our transaction reverted or our cancel was
        mined); sent again, replaced, or handed back to be signed with a fresh nonce as the chain requires."""
        signed = await self._signed_of(payout)
        for s in reversed(signed):
            found = await self.node.receipt(s.tx_hash)
            if found is not None:
                await self._mined(payout, s, found, view, owner)
                return
        if payout.sequence < view.settled:
            # Read before the receipts: had one of ours used it, we would have seen it.
            await owner.decided(PayoutResult(payout.id, Outcome.LOST))
            return
        if payout.sequence < view.latest:
            return  # used a moment ago: our receipt shows up, or the nonce settles as another's
        last = signed[-1]
        if not await self.node.known(last.tx_hash):
            await self._send(payout, last, owner, next_in_line=payout.sequence == view.latest)
        elif payout.sequence == view.latest and self.db.clock.now() - last.created_at >= self.stuck_seconds:
            await self._replace(last, K(last.kind), owner, payout)

    async def _signed_of(self, payout: PendingPayout) -> list[SignedTransaction]:
        async with self.db.read() as session:
            rows = list(await session.exec(select(SignedTransaction)
                                           .where(SignedTransaction.payout_id == payout.id)
                                           .order_by(col(SignedTransaction.created_at), col(SignedTransaction.id))))
        if not rows:  # recorded before signed transactions were kept: the owner's row is its own first one
            rows = [SignedTransaction(id="", network=payout.network, source_address=payout.source,
                                      nonce=payout.sequence, payout_id=payout.id, kind=K.PAYOUT,
                                      tx_hash=payout.tx_hash, raw=payout.raw, value_base=Decimal(payout.value_base),
                                      created_at=payout.created_at)]
        return rows

    async def _mined(self, payout: PendingPayout, signed: SignedTransaction, found: dict[str, Any],
                     view: ChainView, owner: PayoutOwner) -> None:
        if view.head - int(found["blockNumber"]) + 1 < self.network.confirmations:
            return
        # Whatever was mined, the source paid its gas: the owner posts it (issue 14), a cancel's and a revert's too.
        fee_paid = int(found.get("gasUsed", 0)) * int(found.get("effectiveGasPrice", 0))
        if signed.kind == K.CANCEL:
            await owner.decided(PayoutResult(payout.id, Outcome.FAILED, reason="insufficient_funds",
                                             fee_paid=fee_paid))
            return
        if int(found.get("status", 0)) != 1:
            await owner.decided(PayoutResult(payout.id, Outcome.FAILED, reason="transaction_reverted",
                                             fee_paid=fee_paid))
            return
        native = _native(self.catalogue.by_id.get(payout.asset_id))
        # Whichever of our transactions was mined is the payout's transaction.
        await owner.decided(PayoutResult(
            payout.id, Outcome.PAID, tx_hash=signed.tx_hash, raw=signed.raw, value_base=int(signed.value_base),
            fee_paid=fee_paid, fee_base=fee_paid if native else None))

    async def _replace(self, last: SignedTransaction, kind: SignedKind, owner: PayoutOwner,
                       payout: PendingPayout | None) -> None:
        """A transaction with `last`'s nonce and fees raised by ≥ 12.5%: the same payout, a cancel or a filler."""
        unsigned, old, nonce = txs.decoded(last.raw)
        asset = self.catalogue.by_id.get(payout.asset_id) if payout is not None else None
        exact = kind == K.PAYOUT and _native(asset)
        fees = txs.bumped(old, await self.node.fees(exact=exact), exact=exact)
        value = int(last.value_base) if kind == K.PAYOUT else 0
        if kind != K.PAYOUT:
            unsigned = txs.empty(last.source_address)
        elif exact:
            # The destination bears the gas of a native payout: the higher fee comes out of the value.
            gross = int(last.value_base) + unsigned.gas * old.max_fee_per_gas
            value = gross - unsigned.gas * fees.max_fee_per_gas
            if value <= 0:
                log.warning("payout cannot pay a higher fee", extra={"tx": last.tx_hash})
                return
            unsigned = replace(unsigned, value=value)
        private_key = await owner.key_of(self.network.id, last.source_address)
        if private_key is None:
            return
        raw, tx_hash = txs.sign(private_key, self.network.chain_id, nonce, unsigned, fees)
        async with self.db.transaction() as session:
            if last.payout_id is not None:
                if not await owner.undecided(session, last.payout_id):
                    return
            else:
                await session.get(TreasuryNonce, (self.network.id, last.source_address), with_for_update=True)
            newer = (await session.exec(select(SignedTransaction).where(
                SignedTransaction.network == self.network.id, SignedTransaction.source_address == last.source_address,
                SignedTransaction.nonce == nonce, col(SignedTransaction.created_at) > last.created_at))).first()
            if newer is not None:
                return  # another sender replaced it first
            session.add(self._signed(last.source_address, nonce, kind, raw, tx_hash, value, last.payout_id))
        log.info("treasury transaction replaced", extra={"old": last.tx_hash, "new": tx_hash, "kind": str(kind)})
        await self._broadcast(raw, tx_hash)

    @staticmethod
    def _affords(native: int, last: SignedTransaction) -> bool:
        """Whether `native` pays what the payout's transaction needs (then it is retried, not cancelled)."""
        unsigned, fees, _ = txs.decoded(last.raw)
        return native >= unsigned.value + unsigned.gas * fees.max_fee_per_gas

    async def _send(self, payout: PendingPayout | None, last: SignedTransaction, owner: PayoutOwner,
                    next_in_line: bool) -> None:
        """Sends `last` again; a refusal never fails the payout."""
        try:
            await self.node.broadcast(last.raw)
        except NonceTaken:
            return  # mined, by ours or another: the next pass reads the receipts and the nonce
        except Underpriced:
            await self._replace(last, K(last.kind), owner, payout)
        except Rejected as e:
            log.warning("treasury transaction refused again", extra={"tx": last.tx_hash, "error": str(e)})
            stuck = self.db.clock.now() - last.created_at >= self.stuck_seconds
            if payout is None or last.kind != K.PAYOUT or not next_in_line or not stuck:
                return
            # One reading decides both: with two, money arriving between them (the operator funding the source) made
            # a payout "unaffordable" by the first and its cancel affordable by the second, failing a payable payout.
            native = await self.node.native_balance(payout.source)
            if self._affords(native, last):
                return
            # It blocks every later payout: cancel it if the source can at least pay for that.
            _, old, _ = txs.decoded(last.raw)
            cancel = txs.bumped(old, await self.node.fees())
            if native >= txs.NATIVE_GAS * cancel.max_fee_per_gas:
                await self._replace(last, K.CANCEL, owner, payout)

    async def _fill_gaps(self, source: str, view: ChainView, owner: PayoutOwner) -> None:
        """Fills nonces reserved in the database, unused on chain, that no undecided payout is waiting on."""
        async with self.db.read() as session:
            # The counter first: a payout reserved after this read is above its value.
            counter = await session.get(TreasuryNonce, (self.network.id, source))
            if counter is None or counter.next_nonce <= view.latest:
                return
            fillers: dict[int, SignedTransaction] = {}
            for f in await session.exec(select(SignedTransaction).where(
                    SignedTransaction.network == self.network.id, SignedTransaction.source_address == source,
                    SignedTransaction.kind == K.FILLER, col(SignedTransaction.nonce) >= view.latest)
                    .order_by(col(SignedTransaction.created_at))):
                fillers[f.nonce] = f  # the newest per nonce
        waiting = await owner.waiting(self.network.id, source)
        for nonce in range(view.latest, min(counter.next_nonce, view.latest + GAP_FILL_MAX)):
            if nonce in waiting:
                continue
            last = fillers.get(nonce)
            if last is None:
                await self._fill(source, nonce, owner)
            elif not await self.node.known(last.tx_hash):
                await self._send(None, last, owner, next_in_line=nonce == view.latest)
            elif nonce == view.latest and self.db.clock.now() - last.created_at >= self.stuck_seconds:
                await self._replace(last, K.FILLER, owner, None)

    async def _fill(self, source: str, nonce: int, owner: PayoutOwner) -> None:
        private_key = await owner.key_of(self.network.id, source)
        if private_key is None:
            return
        raw, tx_hash = txs.sign(private_key, self.network.chain_id, nonce, txs.empty(source), await self.node.fees())
        async with self.db.transaction() as session:
            await session.get(TreasuryNonce, (self.network.id, source), with_for_update=True)  # one filler per nonce
            taken = (await session.exec(select(SignedTransaction).where(
                SignedTransaction.network == self.network.id, SignedTransaction.source_address == source,
                SignedTransaction.nonce == nonce, SignedTransaction.kind == K.FILLER))).first()
            if taken is not None:
                return
            session.add(self._signed(source, nonce, K.FILLER, raw, tx_hash, 0, None))
        log.warning("treasury nonce gap filled", extra={"network": self.network.id, "address": source, "nonce": nonce})
        await self._broadcast(raw, tx_hash)
