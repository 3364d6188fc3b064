"""Payouts on a UTXO network (`AddressPayouts`): a payout of X from a source address's outputs to a destination.

    quote    the source's confirmed outputs (scantxoutset) and the fee rate (estimatesmartfee, floored): coin selection
             prices the spend (spend.py); nothing is reserved yet
    sign     in the owner's transaction, no network I/O: the source's lock row is taken, the outputs other signed spends
             reserved are set aside (selection runs again if the quoted ones were taken meanwhile), the spend is
             signed, the owner records its row, and the raw transaction and its inputs are stored under the payout
    broadcast  after the commit; a refusal is only logged
    follow   per payout: mined with the network's confirmations → PAID (the fee its inputs left, out of the amount);
             in the mempool → waits; unknown to the node while every input is still unspent → sent again (a crash
             between commit and broadcast, or an eviction); an input spent by a transaction we did not sign → LOST
             (its other reservations released; the owner signs it again with fresh inputs)

Change returns to the source address: the treasury is one address per merchant and mode (DESIGN §3), and a change
output is spendable only once it is confirmed (scantxoutset reads the confirmed set), so a payout that needs it waits
for the block. A fee-bumped replacement (BIP-125: every input signals it) is not made yet: a stuck spend stays in the
mempool until mined or evicted, then is sent again.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, delete, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.catalogue.catalogue import Asset, Network
from server.db import Database
from server.db.sets import on_postgres
from server.ids import new_id
from server.rails.base import (
    ChainUnavailable,
    ConsolidationQuote,
    Outcome,
    Payout,
    PayoutOwner,
    PayoutQuote,
    PayoutRefused,
    PayoutResult,
    PendingPayout,
    SignedPayout,
)
from server.rails.utxo import addresses, balances
from server.rails.utxo.models import UtxoReservedInput, UtxoSource, UtxoSpend
from server.rails.utxo.node import RPC_INVALID_ADDRESS_OR_KEY, NodeClient, RpcError
from server.rails.utxo.params import UtxoParams
from server.rails.utxo.spend import Plan, Utxo, build_and_sign, dust_threshold, share_fee
from server.rails.utxo.spend import select as select_inputs
from server.rails.utxo.spend import sweep as sweep_all

log = logging.getLogger("paygate.rails.utxo")


@dataclass(frozen=True)
class Consolidation:
    """A consolidation quote's own part: the plan (every part's coins in, one output) and each part's coins."""

    plan: Plan
    coins: tuple[tuple[Utxo, ...], ...]


@dataclass(frozen=True)
class Draft:
    """A quote's own part: the plan priced, every confirmed output of the source it was chosen from, and the rate."""

    plan: Plan
    candidates: tuple[Utxo, ...]
    rate: Decimal


class UtxoPayouts:
    pays_back_senders = False  # an input's address need not be the payer's: a refund names its refund_address
    # `PayoutOutputs`: a treasury payout's fee comes out of the outputs it spends, in the coin it pays out.
    native_fee_from_amount = True

    def __init__(self, network: Network, params: UtxoParams, decimals: int, db: Database,
                 fee_rate: Callable[[], Awaitable[Decimal]]) -> None:
        self.network = network
        self.params = params
        self.decimals = decimals
        self.db = db
        self._rate_now = fee_rate  # the rail's: the node's estimate, floored

    def _client(self) -> NodeClient:
        return NodeClient(self.network.rpc_url)

    # ------------------------------------------------------------------------------------------------ new payouts

    def _plan(self, payout: Payout, candidates: Sequence[Utxo], rate: Decimal) -> Plan:
        destination = addresses.script_of(self.params.hrp, payout.destination)
        change = addresses.script_of(self.params.hrp, payout.source)
        return select_inputs(candidates, payout.amount_base, destination, change, rate,
                             fee_from_amount=payout.fee_from_amount, dust_relay_fee=self.params.dust_relay_fee)

    def smallest_output(self, asset: Asset, destination: str) -> int:
        """`PayoutOutputs`: the dust threshold of `destination`'s script at the network's dust relay fee."""
        return dust_threshold(addresses.script_of(self.params.hrp, destination), self.params.dust_relay_fee)

    async def quote_payout(self, payout: Payout) -> PayoutQuote:
        if payout.asset.network != self.network.id or payout.asset.contract_address:
            raise PayoutRefused("unsupported_asset")  # only the native coin lives in outputs
        async with self._client() as client:
            candidates = await balances.utxos(client, self.params.hrp, [payout.source], self.decimals)
        if payout.coins:
            allowed = set(payout.coins)
            candidates = [u for u in candidates if (u.txid, u.vout) in allowed]
        rate = await self._rate_now()
        plan = self._plan(payout, candidates, rate)  # PayoutRefused: insufficient_funds, amount_below_network_fee
        # The fee out of the amount (a refund's), or paid by the source beside it (gas_base: what it costs apart).
        out_of_amount = plan.fee if payout.fee_from_amount else 0
        return PayoutQuote(payout, value_base=plan.value, fee_base=out_of_amount,
                           detail=Draft(plan, tuple(candidates), rate), gas_base=plan.fee - out_of_amount)

    async def _lock_source(self, session: AsyncSession, source: str) -> int:
        """Locks the source's row until the caller's commit and takes its next spend number."""
        # The row exists before it is locked, so two first signers of a source both wait on one row (as the EVM
        # rail's nonce counter does).
        table = UtxoSource.__table__  # type: ignore[attr-defined]
        insert = postgresql.insert if on_postgres(session) else sqlite.insert
        await session.exec(insert(table).values(network=self.network.id, address=source, next_sequence=0)
                           .on_conflict_do_nothing(index_elements=["network", "address"]))
        row = await session.get(UtxoSource, (self.network.id, source), with_for_update=True, populate_existing=True)
        assert row is not None, "inserted above"
        sequence = row.next_sequence
        row.next_sequence = sequence + 1
        session.add(row)
        return sequence

    async def _reserved(self, session: AsyncSession, candidates: Sequence[Utxo]) -> set[tuple[str, int]]:
        txids = sorted({u.txid for u in candidates})
        if not txids:
            return set()
        rows = await session.exec(select(UtxoReservedInput.txid, UtxoReservedInput.vout).where(
            UtxoReservedInput.network == self.network.id, col(UtxoReservedInput.txid).in_(txids)))
        return {(txid, vout) for txid, vout in rows}

    async def sign_payout(self, session: AsyncSession, quote: PayoutQuote, key: bytes, payout_id: str,
                          record: Callable[[SignedPayout], None]) -> SignedPayout:
        draft = quote.detail
        assert isinstance(draft, Draft), "a quote of another rail"
        payout = quote.payout
        sequence = await self._lock_source(session, payout.source)
        taken = await self._reserved(session, draft.candidates)
        plan = draft.plan
        if any((u.txid, u.vout) in taken for u in plan.inputs):
            free = [u for u in draft.candidates if (u.txid, u.vout) not in taken]
            try:
                plan = self._plan(payout, free, draft.rate)
            except PayoutRefused as e:
                # Its outputs are in spends not yet mined; their change comes back with their block.
                raise ChainUnavailable(f"{self.network.id}: {payout.source}'s free outputs do not cover the payout "
                                       f"now ({e.reason}); it waits for the spends in flight") from None
        signed_tx = build_and_sign([(u, key) for u in plan.inputs], plan.outputs)
        signed = SignedPayout(network=self.network.id, source=payout.source, sequence=sequence,
                              tx_hash=signed_tx.txid, raw=signed_tx.raw, value_base=plan.value)
        record(signed)
        await session.flush()
        self._store(session, payout_id, signed, plan.fee, plan.inputs)
        await session.flush()
        return signed

    def _store(self, session: AsyncSession, payout_id: str, signed: SignedPayout, fee: int,
               inputs: Sequence[Utxo]) -> None:
        """The payout's spend and the outputs it takes, in the owner's transaction."""
        spend_id = new_id("uspd")
        session.add(UtxoSpend(id=spend_id, network=self.network.id, source_address=signed.source, payout_id=payout_id,
                              txid=signed.tx_hash, raw=signed.raw, value_base=Decimal(signed.value_base),
                              fee_base=Decimal(fee), created_at=self.db.clock.now()))
        for u in inputs:
            session.add(UtxoReservedInput(network=self.network.id, txid=u.txid, vout=u.vout, spend_id=spend_id))

    # ------------------------------------------------------------------------------------------------ consolidation

    async def quote_consolidation(self, parts: Sequence[Payout]) -> ConsolidationQuote:
        """Every part spends exactly its named coins (`Payout.coins`, which must add up to its amount: a sweep's);
        one output pays their total less one fee, shared among the parts by the inputs each brings."""
        if not parts or len({(p.asset.id, p.destination) for p in parts}) != 1 or not all(
                p.coins and p.fee_from_amount for p in parts):
            raise PayoutRefused("not_consolidatable")
        if parts[0].asset.network != self.network.id or parts[0].asset.contract_address:
            raise PayoutRefused("unsupported_asset")
        async with self._client() as client:
            held = await balances.utxos(client, self.params.hrp, sorted({p.source for p in parts}), self.decimals)
        coins: list[tuple[Utxo, ...]] = []
        for part in parts:
            allowed = set(part.coins)
            mine = tuple(u for u in held if u.address == part.source and (u.txid, u.vout) in allowed)
            if sum(u.value for u in mine) != part.amount_base:
                raise PayoutRefused("coins_changed")  # spent, re-organised or not yet confirmed: one by one then
            coins.append(mine)
        rate = await self._rate_now()
        destination = addresses.script_of(self.params.hrp, parts[0].destination)
        try:
            plan = sweep_all([u for mine in coins for u in mine], destination, rate,
                             dust_relay_fee=self.params.dust_relay_fee)
        except ValueError:
            raise PayoutRefused("too_many_inputs") from None
        fees = share_fee(plan.fee, [len(mine) for mine in coins])
        values = tuple(p.amount_base - f for p, f in zip(parts, fees, strict=True))
        if any(v <= 0 for v in values):
            raise PayoutRefused("amount_below_network_fee")
        return ConsolidationQuote(tuple(parts), values, fees, detail=Consolidation(plan, tuple(coins)))

    async def sign_consolidation(self, session: AsyncSession, quote: ConsolidationQuote, keys: Sequence[bytes],
                                 payout_ids: Sequence[str],
                                 record: Callable[[int, SignedPayout], None]) -> list[SignedPayout]:
        draft = quote.detail
        assert isinstance(draft, Consolidation), "a quote of another rail"
        sequences = {source: await self._lock_source(session, source)  # in one order: no two signers deadlock
                     for source in sorted({p.source for p in quote.parts})}
        everything = [u for mine in draft.coins for u in mine]
        if await self._reserved(session, everything):
            raise ChainUnavailable(f"{self.network.id}: coins of this consolidation are in spends in flight")
        signed_tx = build_and_sign([(u, keys[i]) for i, mine in enumerate(draft.coins) for u in mine],
                                   draft.plan.outputs)
        out = []
        for i, part in enumerate(quote.parts):
            signed = SignedPayout(network=self.network.id, source=part.source, sequence=sequences[part.source],
                                  tx_hash=signed_tx.txid, raw=signed_tx.raw, value_base=quote.values_base[i])
            record(i, signed)
            out.append(signed)
        await session.flush()
        for i, signed in enumerate(out):
            self._store(session, payout_ids[i], signed, quote.fees_base[i], draft.coins[i])
        await session.flush()
        return out

    async def signed_here(self, session: AsyncSession, tx_hashes: Sequence[str]) -> bool:
        found = (await session.exec(select(col(UtxoSpend.id)).where(
            UtxoSpend.network == self.network.id, col(UtxoSpend.txid).in_(list(tx_hashes))).limit(1))).first()
        return found is not None

    async def broadcast(self, signed: SignedPayout) -> None:
        async with self._client() as client:
            await self._send(client, signed.raw, signed.tx_hash)

    async def _send(self, client: NodeClient, raw: str, txid: str) -> None:
        """A refusal is only logged: `follow` reads the chain and decides."""
        try:
            await client.call("sendrawtransaction", raw)
        except RpcError as e:
            log.warning("utxo spend refused", extra={"network": self.network.id, "txid": txid, "error": str(e)})

    # ------------------------------------------------------------------------------------------------ following

    async def follow(self, source: str, pending: list[PendingPayout], owner: PayoutOwner) -> None:
        async with self._client() as client:
            for payout in pending:
                await self._follow_one(client, payout, owner)

    async def _spends_of(self, payout_id: str) -> list[UtxoSpend]:
        async with self.db.read() as session:
            return list(await session.exec(select(UtxoSpend).where(UtxoSpend.payout_id == payout_id)
                                           .order_by(col(UtxoSpend.created_at), col(UtxoSpend.id))))

    async def _inputs_of(self, txid: str) -> list[UtxoReservedInput]:
        async with self.db.read() as session:
            return list(await session.exec(select(UtxoReservedInput).join(
                UtxoSpend, col(UtxoSpend.id) == col(UtxoReservedInput.spend_id)).where(
                UtxoSpend.network == self.network.id, UtxoSpend.txid == txid)))

    async def _follow_one(self, client: NodeClient, payout: PendingPayout, owner: PayoutOwner) -> None:
        spends = await self._spends_of(payout.id)
        if not spends:
            return  # not one of this rail's (the owner's row without a spend cannot happen: both are in one commit)
        spend = spends[-1]
        try:
            tx = await client.call("getrawtransaction", spend.txid, True)
        except RpcError as e:
            if e.code != RPC_INVALID_ADDRESS_OR_KEY:
                raise ChainUnavailable(f"{self.network.id}: {e}") from e
            tx = None
        if tx is not None:
            confirmations = int(tx.get("confirmations", 0) or 0)
            if confirmations >= max(self.network.confirmations, 1):
                fee = int(spend.fee_base)
                await owner.decided(PayoutResult(payout.id, Outcome.PAID, tx_hash=spend.txid, raw=spend.raw,
                                                 value_base=int(spend.value_base), fee_paid=fee, fee_base=fee))
            return  # in the mempool or not deep enough yet
        inputs = await self._inputs_of(spend.txid)  # every part's, where a consolidation pays several payouts
        for i in inputs:
            if await client.call("gettxout", i.txid, i.vout, True) is None:
                # Spent: by ours only if the node knows ours, which it finds by id only with a complete -txindex
                # (a node still building it would make a mined payout look lost, and it would be paid twice).
                await self._txindex_complete(client)
                # Spent, and not by ours (the node does not know ours): ours can never be mined.
                log.warning("utxo spend lost its input", extra={"network": self.network.id, "txid": spend.txid,
                                                               "input": f"{i.txid}:{i.vout}"})
                await self._release(spend.txid)
                await owner.decided(PayoutResult(payout.id, Outcome.LOST))
                return
        await self._send(client, spend.raw, spend.txid)  # never sent (a crash after the commit), or evicted

    async def _txindex_complete(self, client: NodeClient) -> None:
        answer = await client.call("getindexinfo", "txindex")
        index = answer.get("txindex") if isinstance(answer, dict) else None
        if not isinstance(index, dict) or index.get("synced") is not True:
            raise ChainUnavailable(f"{self.network.id}: the node's -txindex is missing or still being built: a spend "
                                   "it cannot find is not decided lost until it is complete")

    async def _release(self, txid: str) -> None:
        """The inputs of a transaction that can never be mined go back to the pool (those still unspent)."""
        async with self.db.transaction() as session:
            spends = select(UtxoSpend.id).where(UtxoSpend.network == self.network.id, UtxoSpend.txid == txid)
            await session.exec(delete(UtxoReservedInput).where(
                col(UtxoReservedInput.spend_id).in_(spends)))
