"""The refund sender (scheduler job): Pending refunds are signed and broadcast; Processing ones are followed by their
nonce and receipts to their confirmation threshold.

Fees. The merchant pays gas from the treasury. For a native-coin refund the fee comes out of the refund itself, as
DESIGN §5 says (`net_amount = amount - network_fee`): the transaction is signed with its tip equal to its fee cap, so
the price it pays is exactly the cap, the customer receives amount - gas * cap, and once mined network_fee is set to
what the receipt says was paid (`gasUsed * effectiveGasPrice`), also on the intent's payment_details. For a token the
gas is paid in the native coin, which cannot be taken out of a token amount: network_fee is "0" in the token, the
customer receives the whole amount, and the gas actually paid is shown on the transaction as `fee_info`.

Nonces. A refund is never failed while its nonce is unused on chain: a refused or ambiguous broadcast (an error, a
timeout, a lost connection) may still be mined, and failing it would let the merchant refund again and pay twice.
The chain decides:
* a receipt of any transaction we signed for the refund's nonce (the first one, a fee-bumped replacement or a
  cancel) decides the refund, once confirmed;
* a nonce used, at confirmation depth, by a transaction we did not sign means ours can never be mined: the refund
  is signed again with a fresh nonce ("nonce too low" alone never counts as sent);
* a transaction the node does not know is sent again; one the node refuses as underpriced, or one pending longer
  than `refund_stuck_seconds`, is replaced with fees raised by at least 12.5% (same nonce), and every signed
  hash is kept so that whichever is mined counts;
* a refund the treasury cannot pay but whose cancel it can (0-value transfer to itself, same nonce) is cancelled
  after `refund_stuck_seconds`, so the refunds queued behind its nonce go out; it fails once the cancel is mined;
* a nonce reserved in the database but unused on chain and waiting on no pending refund (a gap: the chain lost
  a transaction) is filled with a 0-value transfer to the treasury itself, so the refunds after it are mined.

Crash safety. The nonce is reserved in `treasury_nonces` and the signed transaction with its hash is stored in the
same database transaction that moves the refund to Processing (or records a replacement), before anything is
broadcast. A sender that dies after that commit finds the transaction on its next pass and sends the same bytes again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import clock
from server.assets.catalogue import Asset, Network
from server.customers import totals as customer_totals
from server.ids import new_id
from server.payment_intents import settle
from server.payment_intents.env import Env, current
from server.payment_intents.models import PaymentIntent
from server.rails.base import ChainUnavailable
from server.refunds import chain, service
from server.refunds.models import Refund, RefundTransaction, SignedTransaction, TreasuryNonce
from server.refunds.states import EVENT_TYPES, Event, Status, transition
from server.runtime import Runtime
from server.wallet import hd
from server.wallet.models import WalletAccount

log = logging.getLogger("paygate.refunds")
INTERVAL_SECONDS = 3
BATCH = 20
GAP_FILL_MAX = 20  # nonces filled per treasury and pass
REFUND, CANCEL, FILLER = "refund", "cancel", "filler"


async def move(session: AsyncSession, env: Env, refund: Refund, event: Event, **facts: object) -> None:
    """One transition, its facts, `refund.updated`, and `refund.succeeded`/`refund.failed` when it ends there."""
    before = await service.snapshot(session, env, refund)
    refund.status = transition(refund.status, event)
    for name, value in facts.items():
        setattr(refund, name, value)
    refund.updated = clock.now()
    session.add(refund)
    await session.flush()
    await service.record(session, env, refund, "refund.updated", before)
    if type_ := EVENT_TYPES.get(Status(refund.status)):
        await service.record(session, env, refund, type_, None)


async def _lock(session: AsyncSession, refund_id: str) -> Refund | None:
    return await session.get(Refund, refund_id, with_for_update=True, populate_existing=True)


async def fail(rt: Runtime, env: Env, refund_id: str, reason: str) -> None:
    """A Pending refund that cannot be signed: nothing of it was ever broadcast."""
    async with rt.db.transaction() as session:
        refund = await _lock(session, refund_id)
        if refund is not None and refund.status == Status.PENDING:
            await move(session, env, refund, Event.FAILED, failure_reason=reason)


async def _reserve_nonce(session: AsyncSession, network: str, address: str, chain_nonce: int) -> int:
    row = await session.get(TreasuryNonce, (network, address), with_for_update=True, populate_existing=True)
    if row is None:
        row = TreasuryNonce(network=network, address=address, next_nonce=0)
    # The node's count covers transactions sent from the treasury outside paygate (e.g. the merchant moving funds).
    nonce = max(row.next_nonce, chain_nonce)
    row.next_nonce = nonce + 1
    session.add(row)
    return nonce


async def _key(rt: Runtime, env: Env, merchant_id: str, livemode: bool) -> tuple[str, bytes] | None:
    async with rt.db.read() as session:
        account = await session.get(WalletAccount, (merchant_id, livemode))
    if account is None:
        return None
    mnemonic = env.keys.mnemonic(livemode)
    address = hd.address(mnemonic, account.account, hd.TREASURY, hd.TREASURY_INDEX).lower()
    return address, hd.private_key(mnemonic, account.account, hd.TREASURY, hd.TREASURY_INDEX)


async def _treasury_key(rt: Runtime, env: Env, source: str) -> bytes | None:
    """The private key of a treasury address, found through a refund it sent."""
    async with rt.db.read() as session:
        owner = (await session.exec(select(Refund.merchant_id, Refund.livemode)
                                    .join(RefundTransaction, col(RefundTransaction.refund_id) == col(Refund.id))
                                    .where(RefundTransaction.source_address == source).limit(1))).first()
    if owner is None:
        return None
    key = await _key(rt, env, owner[0], owner[1])
    return key[1] if key is not None and key[0] == source else None


def _native(asset: Asset | None) -> bool:
    return asset is not None and not asset.contract_address


@dataclass(frozen=True)
class Plan:
    unsigned: chain.Unsigned
    fees: chain.Fees
    network_fee: Decimal  # in the refunded asset: the gas reserved for a native coin, 0 for a token
    value_base: int  # what the customer receives, smallest units


async def _plan(net: Network, asset: Asset, refund: Refund, treasury: str) -> Plan | str:
    """The transfer to sign now, or the reason it cannot be sent."""
    amount_base = int(refund.amount.scaleb(asset.decimals))
    native = _native(asset)
    fees = await chain.fees(net.rpc_url, exact=native)
    unsigned = await chain.unsigned(net.rpc_url, asset, treasury, refund.refund_address, amount_base)
    gas_cost = unsigned.gas * fees.max_fee_per_gas
    fee = Decimal(0)
    if native:
        fee = Decimal(gas_cost).scaleb(-asset.decimals)
        if amount_base <= gas_cost:
            return "amount_below_network_fee"
        unsigned = replace(unsigned, value=amount_base - gas_cost)
    native_held = await chain.native_balance(net.rpc_url, treasury)
    held = native_held if native else await chain.balance(net.rpc_url, asset, treasury)
    if held < amount_base or native_held < gas_cost:
        return "insufficient_funds"
    return Plan(unsigned, fees, fee, unsigned.value if native else amount_base)


def _signed(net: Network, source: str, nonce: int, kind: str, raw: str, tx_hash: str, value_base: int,
            refund_tx: str | None) -> SignedTransaction:
    return SignedTransaction(id=new_id("stx"), network=net.id, source_address=source, nonce=nonce,
                             refund_transaction_id=refund_tx, kind=kind, tx_hash=tx_hash, raw=raw,
                             value_base=Decimal(value_base), created_at=clock.now())


async def _record_signed(session: AsyncSession, net: Network, refund: Refund, source: str, private_key: bytes,
                         nonce: int, plan: Plan, asset: Asset) -> str:
    """A new refund transaction and its first signed transaction; returns the raw bytes to broadcast."""
    raw, tx_hash = chain.sign(private_key, net.chain_id, nonce, plan.unsigned, plan.fees)
    now = clock.now()
    row = RefundTransaction(
        id=new_id("rtx"), refund_id=refund.id, network=net.id, source_address=source,
        destination_address=refund.refund_address, nonce=nonce, tx_hash=tx_hash, raw=raw,
        amount_base=Decimal(plan.value_base), decimals=asset.decimals, asset_id=asset.id, status="pending",
        created_at=now, updated_at=now)
    session.add(row)
    await session.flush()
    session.add(_signed(net, source, nonce, REFUND, raw, tx_hash, plan.value_base, row.id))
    await session.flush()
    return raw


async def _broadcast(net: Network, raw: str, what: str) -> None:
    """A broadcast whose refusal is only logged: the next pass reads the nonce and receipts and decides."""
    try:
        await chain.broadcast(net.rpc_url, raw)
    except chain.Rejected as e:
        log.warning("treasury transaction refused", extra={"what": what, "error": str(e)})


async def submit(rt: Runtime, env: Env, refund: Refund, asset: Asset, net: Network) -> None:
    """Pending → Processing: read the chain, then reserve, sign and record in one transaction, then broadcast."""
    key = await _key(rt, env, refund.merchant_id, refund.livemode)
    if key is None:
        await fail(rt, env, refund.id, "insufficient_funds")
        return
    treasury, private_key = key
    plan = await _plan(net, asset, refund, treasury)
    if isinstance(plan, str):
        await fail(rt, env, refund.id, plan)
        return
    chain_nonce = await chain.pending_nonce(net.rpc_url, treasury)
    async with rt.db.transaction() as session:
        locked = await _lock(session, refund.id)
        if locked is None or locked.status != Status.PENDING:
            return  # another sender took it
        nonce = await _reserve_nonce(session, net.id, treasury, chain_nonce)
        raw = await _record_signed(session, net, locked, treasury, private_key, nonce, plan, asset)
        await move(session, env, locked, Event.SUBMITTED, network_fee=plan.network_fee)
    # Refused, timed out or lost: the transaction stays pending and the next pass follows its nonce.
    await _broadcast(net, raw, refund.id)


async def _signed_of(rt: Runtime, tx: RefundTransaction) -> list[SignedTransaction]:
    async with rt.db.read() as session:
        rows = list(await session.exec(select(SignedTransaction)
                                       .where(SignedTransaction.refund_transaction_id == tx.id)
                                       .order_by(col(SignedTransaction.created_at), col(SignedTransaction.id))))
    if not rows:  # recorded before signed transactions were kept: the refund transaction is its own first one
        rows = [SignedTransaction(id="", network=tx.network, source_address=tx.source_address, nonce=tx.nonce,
                                  refund_transaction_id=tx.id, kind=REFUND, tx_hash=tx.tx_hash, raw=tx.raw,
                                  value_base=tx.amount_base, created_at=tx.created_at)]
    return rows


@dataclass(frozen=True)
class ChainView:
    """One treasury's nonces read once per pass, before any receipt."""

    head: int
    latest: int  # nonces used in the latest block
    settled: int  # nonces used at the confirmation depth: no re-organisation will give them back


async def _close(rt: Runtime, env: Env, tx_id: str, reason: str) -> None:
    """The refund transaction's nonce went to a transaction of ours that pays nothing (cancel, revert): Failed."""
    async with rt.db.transaction() as session:
        row = await session.get(RefundTransaction, tx_id, with_for_update=True, populate_existing=True)
        if row is None or row.status != "pending":
            return
        row.status, row.updated_at = "failed", clock.now()
        session.add(row)
        await session.flush()
        refund = await _lock(session, row.refund_id)
        if refund is not None and refund.status == Status.PROCESSING:
            await move(session, env, refund, Event.FAILED, failure_reason=reason)


async def _mined(rt: Runtime, env: Env, tx: RefundTransaction, signed: SignedTransaction, found: dict[str, Any],
                 net: Network, view: ChainView) -> None:
    if view.head - int(found["blockNumber"]) + 1 < net.confirmations:
        return
    if signed.kind == CANCEL:
        await _close(rt, env, tx.id, "insufficient_funds")
        return
    if int(found.get("status", 0)) != 1:
        await _close(rt, env, tx.id, "transaction_reverted")
        return
    fee_wei = int(found.get("gasUsed", 0)) * int(found.get("effectiveGasPrice", 0))
    asset = rt.catalogue.by_id.get(tx.asset_id)
    async with rt.db.transaction() as session:
        row = await session.get(RefundTransaction, tx.id, with_for_update=True, populate_existing=True)
        refund = await _lock(session, tx.refund_id)
        if row is None or refund is None or row.status != "pending" or refund.status != Status.PROCESSING:
            return
        # Whichever of our transactions was mined is the refund's transaction.
        row.tx_hash, row.raw, row.amount_base = signed.tx_hash, signed.raw, signed.value_base
        row.status, row.fee_wei, row.updated_at = "confirmed", Decimal(fee_wei), clock.now()
        session.add(row)
        await session.flush()
        paid = Decimal(0)
        facts: dict[str, object] = {}
        if _native(asset):
            # The gas the receipt says was paid, out of the refund: what the customer got is amount - paid.
            paid = Decimal(fee_wei).scaleb(-refund.decimals)
            facts["network_fee"] = paid
        await move(session, env, refund, Event.CONFIRMED, **facts)
        await _count_for_customer(session, env, refund)  # first: the intent's event below shows the customer
        await settle.refunded(session, env, refund.payment_intent_id, refund.amount, network_fee=paid)


async def _count_for_customer(session: AsyncSession, env: Env, refund: Refund) -> None:
    """The refund succeeded: its fiat value (asset amount times the charge's rate) joins the customer's totals."""
    intent = await session.get(PaymentIntent, refund.payment_intent_id)
    if intent is not None:
        await customer_totals.refunded(session, env.catalogue, intent.customer_id, intent.currency,
                                       refund.amount * refund.exchange_rate)


async def _resign(rt: Runtime, env: Env, tx: RefundTransaction, net: Network) -> None:
    """The nonce went to a transaction we did not sign: nothing of ours can be mined. Sign again, fresh nonce."""
    asset = rt.catalogue.by_id.get(tx.asset_id)
    async with rt.db.read() as session:
        refund = await session.get(Refund, tx.refund_id)
    if asset is None or refund is None:
        return
    key = await _key(rt, env, refund.merchant_id, refund.livemode)
    plan = await _plan(net, asset, refund, tx.source_address) if key is not None else "insufficient_funds"
    if isinstance(plan, str) or key is None:
        await _close(rt, env, tx.id, plan if isinstance(plan, str) else "insufficient_funds")
        return
    chain_nonce = await chain.pending_nonce(net.rpc_url, tx.source_address)
    async with rt.db.transaction() as session:
        row = await session.get(RefundTransaction, tx.id, with_for_update=True, populate_existing=True)
        locked = await _lock(session, tx.refund_id)
        if row is None or locked is None or row.status != "pending" or locked.status != Status.PROCESSING:
            return
        before = await service.snapshot(session, env, locked)
        row.status, row.updated_at = "failed", clock.now()
        session.add(row)
        nonce = await _reserve_nonce(session, net.id, tx.source_address, chain_nonce)
        raw = await _record_signed(session, net, locked, tx.source_address, key[1], nonce, plan, asset)
        locked.network_fee, locked.updated = plan.network_fee, clock.now()
        session.add(locked)
        await session.flush()
        await service.record(session, env, locked, "refund.updated", before)
    log.warning("refund nonce taken by another transaction; signed again",
                extra={"refund": tx.refund_id, "old_nonce": tx.nonce, "nonce": nonce})
    await _broadcast(net, raw, tx.refund_id)


async def _replace(rt: Runtime, env: Env, net: Network, last: SignedTransaction, kind: str) -> None:
    """A transaction with `last`'s nonce and fees raised by ≥ 12.5%: the same refund, a cancel or a filler."""
    unsigned, old, nonce = chain.decoded(last.raw)
    asset = None
    if last.refund_transaction_id is not None:
        async with rt.db.read() as session:
            row = await session.get(RefundTransaction, last.refund_transaction_id)
        asset = rt.catalogue.by_id.get(row.asset_id) if row is not None else None
    exact = kind == REFUND and _native(asset)
    fees = chain.bumped(old, await chain.fees(net.rpc_url, exact=exact), exact=exact)
    value = int(last.value_base) if kind == REFUND else 0
    if kind != REFUND:
        unsigned = chain.Unsigned(to=last.source_address, value=0, data="0x", gas=chain.NATIVE_GAS)
    elif exact:
        # The customer bears the gas of a native refund: the higher fee comes out of the value.
        gross = int(last.value_base) + unsigned.gas * old.max_fee_per_gas
        value = gross - unsigned.gas * fees.max_fee_per_gas
        if value <= 0:
            log.warning("refund cannot pay a higher fee", extra={"tx": last.tx_hash})
            return
        unsigned = replace(unsigned, value=value)
    private_key = await _treasury_key(rt, env, last.source_address)
    if private_key is None:
        return
    raw, tx_hash = chain.sign(private_key, net.chain_id, nonce, unsigned, fees)
    async with rt.db.transaction() as session:
        if last.refund_transaction_id is not None:
            row = await session.get(RefundTransaction, last.refund_transaction_id, with_for_update=True,
                                    populate_existing=True)
            if row is None or row.status != "pending":
                return
        else:
            await session.get(TreasuryNonce, (net.id, last.source_address), with_for_update=True)
        newer = (await session.exec(select(SignedTransaction).where(
            SignedTransaction.network == net.id, SignedTransaction.source_address == last.source_address,
            SignedTransaction.nonce == nonce, col(SignedTransaction.created_at) > last.created_at))).first()
        if newer is not None:
            return  # another sender replaced it first
        session.add(_signed(net, last.source_address, nonce, kind, raw, tx_hash, value,
                            last.refund_transaction_id))
    log.info("treasury transaction replaced", extra={"old": last.tx_hash, "new": tx_hash, "kind": kind})
    await _broadcast(net, raw, tx_hash)


async def _affordable(net: Network, tx: RefundTransaction, last: SignedTransaction) -> bool:
    """Whether the treasury holds what the refund transaction needs now (then it is retried, not cancelled)."""
    unsigned, fees, _ = chain.decoded(last.raw)
    native = await chain.native_balance(net.rpc_url, tx.source_address)
    return native >= unsigned.value + unsigned.gas * fees.max_fee_per_gas


async def _send(rt: Runtime, env: Env, net: Network, tx: RefundTransaction | None, last: SignedTransaction,
                next_in_line: bool) -> None:
    """Sends `last` again; a refusal never fails the refund."""
    try:
        await chain.broadcast(net.rpc_url, last.raw)
    except chain.NonceTaken:
        return  # mined, by ours or another: the next pass reads the receipts and the nonce
    except chain.Underpriced:
        await _replace(rt, env, net, last, last.kind)
    except chain.Rejected as e:
        log.warning("treasury transaction refused again", extra={"tx": last.tx_hash, "error": str(e)})
        stuck = clock.now() - last.created_at >= rt.settings.refund_stuck_seconds
        if tx is not None and last.kind == REFUND and next_in_line and stuck and not await _affordable(net, tx, last):
            # It blocks every later refund: cancel it if the treasury can at least pay for that.
            _, old, _ = chain.decoded(last.raw)
            cancel = chain.bumped(old, await chain.fees(net.rpc_url))
            if await chain.native_balance(net.rpc_url, tx.source_address) >= chain.NATIVE_GAS * cancel.max_fee_per_gas:
                await _replace(rt, env, net, last, CANCEL)


async def follow(rt: Runtime, env: Env, tx: RefundTransaction, net: Network, view: ChainView) -> None:
    """Processing → Success at the confirmation threshold, or Failed when our transaction reverted or our cancel
    was mined; sent again, replaced, or signed with a fresh nonce as the chain requires."""
    signed = await _signed_of(rt, tx)
    for s in reversed(signed):
        found = await chain.receipt(net.rpc_url, s.tx_hash)
        if found is not None:
            await _mined(rt, env, tx, s, found, net, view)
            return
    if tx.nonce < view.settled:
        await _resign(rt, env, tx, net)  # read before the receipts: had one of ours used it, we would have seen it
        return
    if tx.nonce < view.latest:
        return  # used a moment ago: our receipt shows up, or the nonce settles as another's
    last = signed[-1]
    if not await chain.known(net.rpc_url, last.tx_hash):
        await _send(rt, env, net, tx, last, next_in_line=tx.nonce == view.latest)
    elif tx.nonce == view.latest and clock.now() - last.created_at >= rt.settings.refund_stuck_seconds:
        await _replace(rt, env, net, last, last.kind)


async def _fill_gaps(rt: Runtime, env: Env, net: Network, source: str, view: ChainView) -> None:
    """Fills nonces reserved in the database, unused on chain, that no pending refund transaction is waiting on."""
    async with rt.db.read() as session:
        # The counter first: a refund transaction reserved after this read is above its value.
        counter = await session.get(TreasuryNonce, (net.id, source))
        if counter is None or counter.next_nonce <= view.latest:
            return
        waiting = set(await session.exec(select(RefundTransaction.nonce).where(
            RefundTransaction.network == net.id, RefundTransaction.source_address == source,
            RefundTransaction.status == "pending")))
        fillers: dict[int, SignedTransaction] = {}
        for f in await session.exec(select(SignedTransaction).where(
                SignedTransaction.network == net.id, SignedTransaction.source_address == source,
                SignedTransaction.kind == FILLER, col(SignedTransaction.nonce) >= view.latest)
                .order_by(col(SignedTransaction.created_at))):
            fillers[f.nonce] = f  # the newest per nonce
    for nonce in range(view.latest, min(counter.next_nonce, view.latest + GAP_FILL_MAX)):
        if nonce in waiting:
            continue
        last = fillers.get(nonce)
        if last is None:
            await _fill(rt, env, net, source, nonce)
        elif not await chain.known(net.rpc_url, last.tx_hash):
            await _send(rt, env, net, None, last, next_in_line=nonce == view.latest)
        elif nonce == view.latest and clock.now() - last.created_at >= rt.settings.refund_stuck_seconds:
            await _replace(rt, env, net, last, FILLER)


async def _fill(rt: Runtime, env: Env, net: Network, source: str, nonce: int) -> None:
    private_key = await _treasury_key(rt, env, source)
    if private_key is None:
        return
    unsigned = chain.Unsigned(to=source, value=0, data="0x", gas=chain.NATIVE_GAS)
    raw, tx_hash = chain.sign(private_key, net.chain_id, nonce, unsigned, await chain.fees(net.rpc_url))
    async with rt.db.transaction() as session:
        await session.get(TreasuryNonce, (net.id, source), with_for_update=True)  # one filler per nonce
        taken = (await session.exec(select(SignedTransaction).where(
            SignedTransaction.network == net.id, SignedTransaction.source_address == source,
            SignedTransaction.nonce == nonce, SignedTransaction.kind == FILLER))).first()
        if taken is not None:
            return
        session.add(_signed(net, source, nonce, FILLER, raw, tx_hash, 0, None))
    log.warning("treasury nonce gap filled", extra={"network": net.id, "address": source, "nonce": nonce})
    await _broadcast(net, raw, tx_hash)


async def follow_treasury(rt: Runtime, env: Env, net: Network, source: str, txs: list[RefundTransaction]) -> None:
    head = await chain.head(net.rpc_url)
    settled = await chain.nonce_at(net.rpc_url, source, max(head - net.confirmations + 1, 0))
    latest = await chain.nonce_at(net.rpc_url, source, "latest")
    view = ChainView(head=head, latest=latest, settled=settled)
    for tx in txs:
        await follow(rt, env, tx, net, view)
    await _fill_gaps(rt, env, net, source, view)


async def send_refunds(rt: Runtime) -> None:
    env = current(rt.settings, rt.catalogue)
    async with rt.db.read() as session:
        pending = list(await session.exec(select(RefundTransaction).where(RefundTransaction.status == "pending")
                                          .order_by(col(RefundTransaction.nonce)).limit(BATCH)))
        new = list(await session.exec(select(Refund).where(Refund.status == Status.PENDING)
                                      .order_by(col(Refund.sort_key)).limit(BATCH)))
    treasuries: dict[tuple[str, str], list[RefundTransaction]] = {}
    for tx in pending:
        treasuries.setdefault((tx.network, tx.source_address), []).append(tx)
    for (network, source), txs in treasuries.items():
        net = rt.catalogue.networks.get(network)
        if net is not None and net.rpc_url:
            try:
                await follow_treasury(rt, env, net, source, txs)
            except ChainUnavailable as e:
                log.warning("refund chain unavailable", extra={"network": network, "error": str(e)})
    for refund in new:
        asset = rt.catalogue.by_id.get(refund.asset_id)
        net = rt.catalogue.networks.get(refund.network)
        if asset is None or net is None or not net.rpc_url:
            continue
        try:
            await submit(rt, env, refund, asset, net)
        except ChainUnavailable as e:
            log.warning("refund chain unavailable", extra={"network": refund.network, "error": str(e)})
