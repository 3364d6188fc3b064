"""The refund sender (scheduler job): Pending refunds are signed and broadcast; Processing ones are followed to
their confirmation threshold.

Fees. The merchant pays gas from the treasury. For a native-coin refund the fee comes out of the refund itself, as
DESIGN §5 says (`net_amount = amount - network_fee`): network_fee is the gas limit * max fee per gas reserved when
signing (the most the transaction can cost), and the customer receives amount - network_fee, so the treasury never
spends more than `amount`. For a token the gas is paid in the native coin, which cannot be taken out of a token
amount: network_fee is "0" in the token, the customer receives the whole amount, and the gas actually paid is shown
on the transaction as `fee_info` in `fee_currency` (the native coin).

Crash safety. The nonce is reserved in `treasury_nonces` and the signed transaction with its hash is stored in the
same transaction that moves the refund to Processing, before anything is broadcast. A sender that dies after that
commit finds the transaction on its next pass and sends the same bytes again (same hash, same nonce), so the
customer is never paid twice.
"""

from __future__ import annotations

import logging
from decimal import Decimal

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import clock
from server.assets.catalogue import Asset, Network
from server.ids import new_id
from server.payment_intents import settle
from server.payment_intents.env import Env, current
from server.rails.base import ChainUnavailable
from server.refunds import chain, service
from server.refunds.models import Refund, RefundTransaction, TreasuryNonce
from server.refunds.states import EVENT_TYPES, Event, Status, transition
from server.runtime import Runtime
from server.wallet import hd
from server.wallet.models import WalletAccount

log = logging.getLogger("paygate.refunds")
INTERVAL_SECONDS = 3
BATCH = 20


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
    async with rt.db.transaction() as session:
        refund = await _lock(session, refund_id)
        if refund is not None and refund.status in (Status.PENDING, Status.PROCESSING):
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


async def _key(rt: Runtime, env: Env, refund: Refund) -> tuple[str, bytes] | None:
    async with rt.db.read() as session:
        account = await session.get(WalletAccount, (refund.merchant_id, refund.livemode))
    if account is None:
        return None
    mnemonic = env.keys.mnemonic(refund.livemode)
    address = hd.address(mnemonic, account.account, hd.TREASURY, hd.TREASURY_INDEX).lower()
    return address, hd.private_key(mnemonic, account.account, hd.TREASURY, hd.TREASURY_INDEX)


async def submit(rt: Runtime, env: Env, refund: Refund, asset: Asset, net: Network) -> None:
    """Pending → Processing: read the chain, then reserve, sign and record in one transaction, then broadcast."""
    key = await _key(rt, env, refund)
    if key is None:
        await fail(rt, env, refund.id, "insufficient_funds")
        return
    treasury, private_key = key
    amount_base = int(refund.amount.scaleb(asset.decimals))
    fees = await chain.fees(net.rpc_url)
    unsigned = await chain.unsigned(net.rpc_url, asset, treasury, refund.refund_address, amount_base)
    gas_cost = unsigned.gas * fees.max_fee_per_gas
    fee = Decimal(0)
    if not asset.contract_address:
        fee = Decimal(gas_cost).scaleb(-asset.decimals)
        if amount_base <= gas_cost:
            await fail(rt, env, refund.id, "amount_below_network_fee")
            return
        unsigned = chain.Unsigned(to=unsigned.to, value=amount_base - gas_cost, data="0x", gas=unsigned.gas)
    native = await chain.native_balance(net.rpc_url, treasury)
    held = native if not asset.contract_address else await chain.balance(net.rpc_url, asset, treasury)
    if held < amount_base or native < gas_cost:
        await fail(rt, env, refund.id, "insufficient_funds")
        return
    chain_nonce = await chain.pending_nonce(net.rpc_url, treasury)
    async with rt.db.transaction() as session:
        locked = await _lock(session, refund.id)
        if locked is None or locked.status != Status.PENDING:
            return  # another sender took it
        nonce = await _reserve_nonce(session, net.id, treasury, chain_nonce)
        raw, tx_hash = chain.sign(private_key, net.chain_id, nonce, unsigned, fees)
        now = clock.now()
        session.add(RefundTransaction(
            id=new_id("rtx"), refund_id=locked.id, network=net.id, source_address=treasury,
            destination_address=locked.refund_address, nonce=nonce, tx_hash=tx_hash, raw=raw,
            amount_base=Decimal(amount_base - (gas_cost if not asset.contract_address else 0)),
            decimals=asset.decimals, asset_id=asset.id, status="pending", created_at=now, updated_at=now))
        await session.flush()
        await move(session, env, locked, Event.SUBMITTED, network_fee=fee)
    try:
        await chain.broadcast(net.rpc_url, raw)
    except chain.Rejected as e:
        log.warning("refund transaction rejected", extra={"refund": refund.id, "error": str(e)})
        await _give_up(rt, env, tx_hash, "network_error")
    # A lost connection leaves the transaction pending: the next pass sends the same bytes again.


async def _give_up(rt: Runtime, env: Env, tx_hash: str, reason: str) -> None:
    async with rt.db.transaction() as session:
        tx = (await session.exec(select(RefundTransaction).where(RefundTransaction.tx_hash == tx_hash))).first()
        if tx is None or tx.status != "pending":
            return
        tx.status, tx.updated_at = "failed", clock.now()
        session.add(tx)
        nonce = await session.get(TreasuryNonce, (tx.network, tx.source_address), with_for_update=True)
        if nonce is not None and nonce.next_nonce == tx.nonce + 1:
            nonce.next_nonce = tx.nonce  # the last one reserved: free it so no gap blocks the next refunds
            session.add(nonce)
        refund = await _lock(session, tx.refund_id)
        if refund is not None and refund.status == Status.PROCESSING:
            await move(session, env, refund, Event.FAILED, failure_reason=reason)


async def follow(rt: Runtime, env: Env, tx: RefundTransaction, net: Network) -> None:
    """Processing → Success at the confirmation threshold, or Failed when reverted; rebroadcast when unknown."""
    found = await chain.receipt(net.rpc_url, tx.tx_hash)
    if found is None:
        if not await chain.known(net.rpc_url, tx.tx_hash):
            try:
                await chain.broadcast(net.rpc_url, tx.raw)
            except chain.Rejected as e:
                log.warning("refund transaction rejected again", extra={"tx": tx.tx_hash, "error": str(e)})
                await _give_up(rt, env, tx.tx_hash, "network_error")
        return
    if int(found.get("status", 0)) != 1:
        await _give_up(rt, env, tx.tx_hash, "transaction_reverted")
        return
    if await chain.head(net.rpc_url) - int(found["blockNumber"]) + 1 < net.confirmations:
        return
    fee_wei = int(found.get("gasUsed", 0)) * int(found.get("effectiveGasPrice", 0))
    async with rt.db.transaction() as session:
        row = await session.get(RefundTransaction, tx.id, with_for_update=True, populate_existing=True)
        refund = await _lock(session, tx.refund_id)
        if row is None or refund is None or row.status != "pending" or refund.status != Status.PROCESSING:
            return
        row.status, row.fee_wei, row.updated_at = "confirmed", Decimal(fee_wei), clock.now()
        session.add(row)
        await session.flush()
        await move(session, env, refund, Event.CONFIRMED)
        await settle.refunded(session, env, refund.payment_intent_id, refund.amount)


async def send_refunds(rt: Runtime) -> None:
    env = current(rt.settings, rt.catalogue)
    async with rt.db.read() as session:
        pending = list(await session.exec(select(RefundTransaction).where(RefundTransaction.status == "pending")
                                          .order_by(col(RefundTransaction.nonce)).limit(BATCH)))
        new = list(await session.exec(select(Refund).where(Refund.status == Status.PENDING)
                                      .order_by(col(Refund.sort_key)).limit(BATCH)))
    for tx in pending:
        net = rt.catalogue.networks.get(tx.network)
        if net is not None and net.rpc_url:
            try:
                await follow(rt, env, tx, net)
            except ChainUnavailable as e:
                log.warning("refund chain unavailable", extra={"network": tx.network, "error": str(e)})
    for refund in new:
        asset = rt.catalogue.by_id.get(refund.asset_id)
        net = rt.catalogue.networks.get(refund.network)
        if asset is None or net is None or not net.rpc_url:
            continue
        try:
            await submit(rt, env, refund, asset, net)
        except ChainUnavailable as e:
            log.warning("refund chain unavailable", extra={"network": refund.network, "error": str(e)})
