"""Payouts (`/v1/payouts`, DESIGN §15): from the merchant's treasury to one of its verified payout addresses, in the
same asset, never above the available balance.

Creating one locks its amount in the ledger (available → locked) in the transaction that checks the balance, with
the merchant's wallet account row locked: concurrent payouts are serialised there, so the sum of what they lock never
exceeds what was available. The scheduler sends approved payouts with the refund sender's discipline (through the
rail, as a treasury transfer); paid → the amount leaves (locked → outflow) and the network fee, paid apart by the
treasury in the native coin, leaves what was set aside for it before signing (server/treasury/gas.py: the merchant's
available native coin, then gas coin sent by hand, never paygate's fees; a payout whose gas they do not cover waits);
failed, rejected or canceled → locked → available.

The whole amount arrives: the treasury pays the network fee apart (`payment_net_amount` = `source_amount`), so the
amount the preview promised is the amount that reaches the address. Except where the rail pays a payout of its
native coin's fee out of the amount (`PayoutOutputs.native_fee_from_amount`, UTXO): then amount - network_fee
arrives (`payment_net_amount`, estimated until the receipt tells), the merchant's balance moves by the amount, and
nothing is set aside for the fee.
"""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any

import grpc
from paygate.v1 import addresses_pb2 as apb
from paygate.v1 import payouts_pb2 as pb
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import json_fields, validate
from server.aml.screener import AmlStatus
from server.catalogue.catalogue import Asset, Catalogue
from server.clock import now_of
from server.context import Caller
from server.errors import DomainError, MissingParameter, invalid
from server.events import outbox
from server.ids import new_id
from server.merchants.models import Merchant
from server.paging import Page, newest_first
from server.payment_intents.totals import text
from server.rails.base import (
    ChainUnavailable,
    InvalidAddress,
    Outcome,
    Payout,
    PayoutOutputs,
    PayoutRefused,
    PayoutResult,
)
from server.scoping import find_owned, get_owned, in_scope
from server.treasury import gas, signing_keys
from server.treasury.addresses import convert as address_convert
from server.treasury.addresses import service as addresses
from server.treasury.addresses.models import AddressStatus, MerchantAddress
from server.treasury.approvals import trail as approval_trail
from server.treasury.approvals.models import ApprovalActionKind, ApprovalStatus
from server.treasury.env import TreasuryEnv
from server.treasury.ledger import postings
from server.treasury.ledger.listeners import treasury_of
from server.treasury.ledger.models import Account, CauseType
from server.treasury.ledger.postings import Holder, Scope
from server.treasury.models import OutgoingStatus, TreasuryTransfer
from server.treasury.payouts import states as payout_states
from server.treasury.payouts.models import HOLDING, PayoutStatus
from server.treasury.payouts.models import Payout as PayoutRow
from server.treasury.payouts.states import Event
from server.treasury.sweeps.service import GasFunding, native_of

log = logging.getLogger("paygate.treasury.payouts")
RESOURCE = "payout"
KIND = "payout"
TX = OutgoingStatus
BATCH = 20
# What a payout's transaction ending means for the payout.
OUTCOME_EVENTS = {Outcome.PAID: Event.CONFIRMED, Outcome.LOST: Event.LOST, Outcome.FAILED: Event.FAILED}


class InsufficientFunds(DomainError):
    code = grpc.StatusCode.INVALID_ARGUMENT
    reason = "insufficient_funds"


# ---------------------------------------------------------------------------------------------------- requests


def _payout_asset(catalogue: Catalogue, caller: Caller, rt: TreasuryEnv,
                  request: pb.CreatePayoutRequest | pb.PreviewPayoutRequest) -> Asset:
    """The asset a payout takes (DESIGN §17): `source_coin` names it by id, or names its coin (`USDT`, as the SDK
    sends) with `receive_asset_id` naming the asset; a payout arrives in the asset it takes (no swaps)."""
    source, receive = request.source_coin.strip(), request.receive_asset_id.strip()
    if not source:
        raise MissingParameter("source_coin")
    payable = {a.id: a for a in catalogue.for_mode(caller.livemode)
               if not a.is_fiat and rt.rails.payouts(a.network) is not None}
    if source in payable:
        if receive and receive != source:
            raise invalid("receive_asset_id", "a payout arrives in the asset it takes (no swaps)")
        return payable[source]
    if not receive:
        coins = {a.coin for a in payable.values()}
        if source in coins:
            raise invalid("source_coin", f"{source!r} is a coin: name the asset in receive_asset_id (or give the "
                                         f"asset id, e.g. {source}-<network>)")
        raise invalid("source_coin", f"{source!r} is not an asset paygate pays out in this mode")
    asset = payable.get(receive)
    if asset is None:
        raise invalid("receive_asset_id", f"{receive!r} is not an asset paygate pays out in this mode")
    if source != asset.coin:
        raise invalid("source_coin", f"{source!r} is not the coin of {asset.id} ({asset.coin})")
    return asset


async def _resolve(session: AsyncSession, catalogue: Catalogue, caller: Caller, rt: TreasuryEnv,
                   request: pb.CreatePayoutRequest | pb.PreviewPayoutRequest) -> tuple[Asset, MerchantAddress, Decimal]:
    asset = _payout_asset(catalogue, caller, rt, request)
    if not request.source_amount.strip():
        raise MissingParameter("source_amount")
    amount = validate.amount("source_amount", request.source_amount, allow_zero=False, decimals=asset.decimals)
    account_id, address = request.receive_account_id.strip(), request.receive_address.strip()
    row: MerchantAddress | None = None
    if account_id:
        row = await find_owned(session, MerchantAddress, account_id, caller, alive=lambda r: not r.deleted_at)
        if row is None or row.status != AddressStatus.VERIFIED or row.network != asset.network:
            raise invalid("receive_account_id", "not a verified payout address of this network")
        if address and _normalized(rt, asset, address) != row.address:
            raise invalid("receive_address", "not the address of receive_account_id")
    elif address:
        stored = _normalized(rt, asset, address)
        row = (await session.exec(select(MerchantAddress).where(
            MerchantAddress.merchant_id == caller.merchant_id, MerchantAddress.livemode == caller.livemode,
            MerchantAddress.network == asset.network, MerchantAddress.address == stored,
            MerchantAddress.status == AddressStatus.VERIFIED, MerchantAddress.deleted_at == 0))).first()
        if row is None:
            raise invalid("receive_address", "not a verified payout address of this network")
    else:
        raise MissingParameter("receive_account_id", "receive_account_id: or receive_address is required")
    addresses.check_usable(row, "receive_account_id" if account_id else "receive_address", now_of(session))
    return asset, row, amount


def _normalized(rt: TreasuryEnv, asset: Asset, address: str) -> str:
    book = rt.rails.addresses(asset.network)
    try:
        if book is None:
            raise InvalidAddress(address)
        return book.normalize_address(address)
    except InvalidAddress:
        raise invalid("receive_address", "not an address on this network") from None


def fee_from_amount(rt: TreasuryEnv, asset_id: str) -> bool:
    """Whether a payout of `asset_id` pays its network fee out of its amount (the rail's `PayoutOutputs`)."""
    asset = rt.catalogue.by_id.get(asset_id)
    if asset is None:
        return False
    native = native_of(rt.catalogue, asset.network)
    payouts = rt.rails.payouts(asset.network)
    return (native is not None and native.id == asset.id and isinstance(payouts, PayoutOutputs)
            and payouts.native_fee_from_amount)


def _payout(rt: TreasuryEnv, asset: Asset, treasury: str, destination: str, amount: Decimal) -> Payout:
    return Payout(asset=asset, source=treasury, destination=destination, amount_base=int(amount.scaleb(asset.decimals)),
                  fee_from_amount=fee_from_amount(rt, asset.id))


async def estimated_fee(rt: TreasuryEnv, asset: Asset, treasury: str, destination: str, amount: Decimal) -> int:
    """The most the network fee can be at today's fees (gas times the fee cap), in the native coin's units. A rail
    without `GasFunding` (UTXO) prices it by quoting the payout from the treasury's outputs: 0 when they cannot pay
    it now (it waits for funds when sent)."""
    payouts = rt.rails.payouts(asset.network)
    if payouts is None:
        return 0
    if isinstance(payouts, GasFunding):
        return await payouts.gas_needed(_payout(rt, asset, treasury or destination, destination, amount))
    if not treasury:
        return 0
    try:
        quote = await payouts.quote_payout(_payout(rt, asset, treasury, destination, amount))
    except PayoutRefused:
        return 0
    return quote.fee_base + quote.gas_base


async def preview(rt: TreasuryEnv, caller: Caller, request: pb.PreviewPayoutRequest) -> pb.PreviewPayoutResponse:
    async with rt.db.read() as session:
        asset, address, amount = await _resolve(session, rt.catalogue, caller, rt, request)
        free = await postings.available(session, caller.merchant_id, caller.livemode, asset.id)
        treasury = await treasury_of(rt, session, asset.network, caller.merchant_id, caller.livemode)
    native = native_of(rt.catalogue, asset.network)
    assert native is not None
    try:
        fee = await estimated_fee(rt, asset, treasury, address.address, amount)
    except ChainUnavailable:
        fee = 0
    fee_units = Decimal(fee).scaleb(-native.decimals)
    net = amount - fee_units if fee_from_amount(rt, asset.id) else amount
    return pb.PreviewPayoutResponse(
        source_coin=asset.id, source_amount=text(amount), receive_asset_id=asset.id, payment_net_amount=text(net),
        payment_network_fee=text(fee_units), payment_network_fee_asset_id=native.id,
        available_balance=text(free), receive_amount=text(net))


def _scope(p: PayoutRow) -> Scope:
    return Scope(p.merchant_id, p.livemode, p.asset_id, p.network)


async def create(rt: TreasuryEnv, caller: Caller, request: pb.CreatePayoutRequest) -> PayoutRow:
    metadata = json_fields.metadata_of(request.metadata)
    external_id = validate.text("external_id", request.external_id)
    note = validate.text("internal_note", request.internal_note, max_length=1000)
    descriptor = validate.text("statement_descriptor", request.statement_descriptor)
    async with rt.db.read() as session:
        # Four eyes before the request's destination (DESIGN §16): a live merchant without approvers pays out
        # nowhere, whichever address a caller names, and learns what to set up rather than that an address is
        # missing (a live payout address also waits for an approver).
        rule = await approval_trail.rule_of(session, caller.merchant_id, caller.livemode)
        approval_trail.refuse_unless_allowed(rule, caller.merchant_id, "payouts")
        asset, address, amount = await _resolve(session, rt.catalogue, caller, rt, request)
        treasury = await treasury_of(rt, session, asset.network, caller.merchant_id, caller.livemode)
        merchant = await session.get(Merchant, caller.merchant_id)
        summed = await approval_trail.recent_assets(session, rule, caller.merchant_id, caller.livemode,
                                                    rt.clock.now())
    if not treasury:
        raise InsufficientFunds("source_amount: the merchant has no treasury in this mode", field="source_amount")
    # Rates for the four-eyes rule, read before its transaction (a live rate source is network I/O).
    known = await approval_trail.prices(rt.rates, rt.catalogue, merchant, rule, summed | {asset.id})
    native = native_of(rt.catalogue, asset.network)
    assert native is not None
    try:
        fee = Decimal(await estimated_fee(rt, asset, treasury, address.address, amount)).scaleb(-native.decimals)
    except ChainUnavailable:
        fee = Decimal(0)
    async with rt.db.transaction() as session:
        # One payout or refund at a time per merchant and mode: the balance cannot change until this commits.
        free = await postings.available(session, caller.merchant_id, caller.livemode, asset.id, lock=True)
        if amount > free:
            raise InsufficientFunds(f"source_amount: {text(amount)} is more than the available {text(free)}",
                                    field="source_amount")
        now = rt.clock.now()
        # Four eyes (DESIGN §15, §16): it waits, its amount locked like any other, until approvers decide. Decided
        # with the wallet account locked: the day's other payouts it is summed with are all committed.
        needs = await approval_trail.required(session, caller.merchant_id, caller.livemode, asset.id, amount, known,
                                              now)
        row = PayoutRow(id=new_id("payout"), merchant_id=caller.merchant_id, livemode=caller.livemode,
                        asset_id=asset.id, network=asset.network, decimals=asset.decimals, amount=amount,
                        network_fee=fee, merchant_address_id=address.id, address=address.address,
                        status=PayoutStatus.PENDING if needs else PayoutStatus.APPROVED,
                        approval_status=ApprovalStatus.PENDING if needs else ApprovalStatus.NOT_REQUIRED,
                        approvals_required=needs, created_by_key=caller.key_id,
                        external_id=external_id, metadata_=metadata, internal_note=note,
                        statement_descriptor=descriptor, created=now, updated=now)
        session.add(row)
        await session.flush()
        approval_trail.act(session, row, ApprovalActionKind.CREATE, caller.key_id)
        await postings.post(session, _scope(row), CauseType.PAYOUT, row.id,
                          {Holder(Account.AVAILABLE, treasury): -amount, Holder(Account.LOCKED, treasury): amount})
        await record(session, rt, row, "payout.created", None)
    return row


async def get(session: AsyncSession, caller: Caller, payout_id: str, *, lock: bool = False) -> PayoutRow:
    return await get_owned(session, PayoutRow, payout_id.strip(), caller, RESOURCE, lock=lock)


async def list_page(session: AsyncSession, caller: Caller, page: Page, status: str) -> tuple[list[PayoutRow], int]:
    where: list[Any] = in_scope(PayoutRow, caller)
    if status.strip():
        where.append(PayoutRow.status == status.strip())
    return await newest_first(session, PayoutRow, where, page)


async def release(session: AsyncSession, rt: TreasuryEnv, row: PayoutRow) -> None:
    """Locked → available: the amount of a payout that will never be sent."""
    treasury = await treasury_of(rt, session, row.network, row.merchant_id, row.livemode)
    await postings.post(session, _scope(row), CauseType.PAYOUT, row.id,
                      {Holder(Account.LOCKED, treasury): -row.amount, Holder(Account.AVAILABLE, treasury): row.amount})


async def cancel(rt: TreasuryEnv, caller: Caller, payout_id: str) -> PayoutRow:
    async with rt.db.transaction() as session:
        row = await get(session, caller, payout_id, lock=True)
        payout_states.next_status(row.status, Event.CANCEL)  # 409 payout_not_cancelable before anything moves
        before = await snapshot(session, rt, row)
        payout_states.move(row, Event.CANCEL, {}, rt.clock.now())
        session.add(row)
        approval_trail.act(session, row, ApprovalActionKind.CANCEL, caller.key_id)
        await release(session, rt, row)
        await record(session, rt, row, "payout.updated", before)
    return row


# ---------------------------------------------------------------------------------------------------- the wire


async def transactions(session: AsyncSession, payout_ids: list[str]) -> dict[str, list[TreasuryTransfer]]:
    out: dict[str, list[TreasuryTransfer]] = {}
    for t in await session.exec(select(TreasuryTransfer).where(
            TreasuryTransfer.owner_kind == KIND, col(TreasuryTransfer.owner_id).in_(payout_ids))
            .order_by(col(TreasuryTransfer.created_at))):
        out.setdefault(t.owner_id, []).append(t)
    return out


async def wallets(session: AsyncSession, rt: TreasuryEnv, rows: list[PayoutRow]) -> dict[str, apb.MerchantAddress]:
    """The payout address each payout names, as the address API shows it, by address id."""
    ids = sorted({r.merchant_address_id for r in rows if r.merchant_address_id})
    if not ids:
        return {}
    found = await session.exec(select(MerchantAddress).where(col(MerchantAddress.id).in_(ids)))
    return {a.id: address_convert.to_proto(rt, a) for a in found}


def to_proto(catalogue: Catalogue, row: PayoutRow, txs: list[TreasuryTransfer],
             wallet: apb.MerchantAddress | None = None, *, fee_from_amount: bool = False) -> pb.Payout:
    """`fee_from_amount`: the rail pays this payout's fee out of its amount (`fee_from_amount(rt, row.asset_id)`), so
    what arrives is amount - network_fee (the estimate, then the receipt's)."""
    native = native_of(catalogue, row.network)
    asset = catalogue.by_id.get(row.asset_id)
    net = row.amount - row.network_fee if fee_from_amount else row.amount
    out = pb.Payout(
        id=row.id, object="payout", merchant_id=row.merchant_id, source_coin=row.asset_id,
        source_amount=text(row.amount), receive_asset_id=row.asset_id, receive_account_id=row.merchant_address_id,
        receive_address=row.address, network=row.network, payment_network_fee=text(row.network_fee),
        payment_network_fee_asset_id=native.id if native else "", payment_net_amount=text(net),
        status=row.status, approval_status=row.approval_status, aml_status=AmlStatus.APPROVED,
        failure_reason=row.failure_reason, external_id=row.external_id, internal_note=row.internal_note,
        statement_descriptor=row.statement_descriptor, created=row.created, updated=row.updated,
        transactions=[pb.PayoutTransaction(id=t.id, tx_hash=t.tx_hash, status=t.status,
                                           amount=format(t.amount_base, "f"), fee=format(t.fee_wei, "f"))
                      for t in txs],
        receive_wallet_address=wallet, receive_account_type="wallet", receive_coin=asset.coin if asset else "",
        livemode=row.livemode, receive_amount=text(net))
    json_fields.fill(out.metadata, row.metadata_)
    return out


async def snapshot(session: AsyncSession, rt: TreasuryEnv, row: PayoutRow) -> dict[str, Any]:
    txs = await transactions(session, [row.id])
    wallet = (await wallets(session, rt, [row])).get(row.merchant_address_id)
    return outbox.snapshot(to_proto(rt.catalogue, row, txs.get(row.id, []), wallet,
                                    fee_from_amount=fee_from_amount(rt, row.asset_id)))


async def record(session: AsyncSession, rt: TreasuryEnv, row: PayoutRow, type_: str,
                 before: dict[str, Any] | None) -> None:
    txs = await transactions(session, [row.id])
    wallet = (await wallets(session, rt, [row])).get(row.merchant_address_id)
    await outbox.record(session, merchant_id=row.merchant_id, livemode=row.livemode, type=type_,
                        resource=to_proto(rt.catalogue, row, txs.get(row.id, []), wallet,
                                          fee_from_amount=fee_from_amount(rt, row.asset_id)), before=before)


# ---------------------------------------------------------------------------------------------------- sending


def _record_tx(session: AsyncSession, tx_id: str, row: PayoutRow, signed: Any) -> None:
    now = now_of(session)
    session.add(TreasuryTransfer(
        id=tx_id, owner_kind=KIND, owner_id=row.id, merchant_id=row.merchant_id, livemode=row.livemode,
        network=signed.network, asset_id=row.asset_id, source_address=signed.source, destination_address=row.address,
        nonce=signed.sequence, tx_hash=signed.tx_hash, raw=signed.raw, amount_base=Decimal(signed.value_base),
        status=TX.PENDING, created_at=now, updated_at=now))


async def send(rt: TreasuryEnv, row: PayoutRow) -> None:
    """Approved → in_transit: quote, then set its gas aside, sign and record with the payout locked, then broadcast.
    A payout the treasury cannot pay yet (its funds not swept in, its gas covered neither by the merchant's available
    native coin nor by gas coin sent by hand: server/treasury/gas.py) waits; it is never failed before anything is
    signed, and the merchant may cancel it meanwhile."""
    asset = rt.catalogue.by_id.get(row.asset_id)
    native = native_of(rt.catalogue, row.network)
    payouts = rt.rails.payouts(row.network)
    treasury = await signing_keys.treasury(rt, row.network, row.merchant_id, row.livemode)
    if asset is None or native is None or payouts is None or treasury is None:
        return
    payout = _payout(rt, asset, treasury[0], row.address, row.amount)
    try:
        quote = await payouts.quote_payout(payout)
    except PayoutRefused as e:
        log.warning("payout waits", extra={"payout": row.id, "reason": e.reason})
        return
    most = Decimal(quote.gas_base).scaleb(-native.decimals)
    cost = await gas.cost_of(rt, _gas_scope(row, native), native, treasury[0], most)
    async with rt.db.transaction() as session:
        locked = await session.get(PayoutRow, row.id, with_for_update=True, populate_existing=True)
        if locked is None or not payout_states.allowed(locked.status, Event.SUBMITTED):
            return
        tx_id = new_id("ttx")
        covered = await gas.reserve(session, cost, tx_id)
        if covered:
            before = await snapshot(session, rt, locked)
            signed = await payouts.sign_payout(session, quote, treasury[1], tx_id,
                                               lambda s: _record_tx(session, tx_id, locked, s))
            payout_states.move(locked, Event.SUBMITTED, {}, rt.clock.now())
            session.add(locked)
            approval_trail.act(session, locked, ApprovalActionKind.SENT, "")
            await record(session, rt, locked, "payout.updated", before)
    if not covered:
        log.warning("payout waits", extra={"payout": row.id, "reason": "insufficient_gas"})
        return
    await payouts.broadcast(signed)


def _gas_scope(row: PayoutRow, native: Asset) -> Scope:
    return Scope(row.merchant_id, row.livemode, native.id, row.network)


async def decided(session: AsyncSession, rt: TreasuryEnv, tx: TreasuryTransfer, result: PayoutResult) -> None:
    """In the owner's transaction, with `tx` locked and already finished: the payout follows its transaction."""
    row = await session.get(PayoutRow, tx.owner_id, with_for_update=True, populate_existing=True)
    event = OUTCOME_EVENTS[result.outcome]
    if row is None or not payout_states.allowed(row.status, event):
        return
    before = await snapshot(session, rt, row)
    now = now_of(session)
    native = native_of(rt.catalogue, row.network)
    assert native is not None, "a network that signs has a native coin"
    treasury, fee = tx.source_address, Decimal(result.fee_paid).scaleb(-native.decimals)
    # A fee out of the amount left with it (locked → outflow); only one paid apart leaves the treasury's gas.
    apart = Decimal(0) if fee_from_amount(rt, row.asset_id) else fee
    if event is Event.LOST:
        await gas.release(session, _gas_scope(row, native), tx.id)  # nothing was paid; set aside again when signed
        payout_states.move(row, event, {}, now)  # approved: signed again with a fresh nonce next pass
        session.add(row)
        await record(session, rt, row, "payout.updated", before)
        return
    if event is Event.CONFIRMED:
        payout_states.move(row, event, {"network_fee": fee, "tx_hash": result.tx_hash}, now)
        await postings.post(session, _scope(row), CauseType.PAYOUT, row.id,
                          {Holder(Account.LOCKED, treasury): -row.amount, Holder(Account.OUTFLOW): row.amount})
        type_ = "payout.succeeded"
    else:
        payout_states.move(row, event, {"failure_reason": result.reason or "failed"}, now)
        await release(session, rt, row)
        type_ = "payout.failed"
    # Its gas (a mined cancel's or revert's too) out of what was set aside for it; none paid: all of it back.
    await gas.settle(session, _gas_scope(row, native), tx.id, treasury, apart, {Holder(Account.OUTFLOW): apart})
    session.add(row)
    await session.flush()
    await record(session, rt, row, "payout.updated", before)
    await record(session, rt, row, type_, None)


async def approved(rt: TreasuryEnv) -> list[PayoutRow]:
    async with rt.db.read() as session:
        return list(await session.exec(select(PayoutRow).where(PayoutRow.status == PayoutStatus.APPROVED)
                                       .order_by(col(PayoutRow.sort_key)).limit(BATCH)))


__all__ = ["HOLDING", "PayoutRow", "approved", "cancel", "create", "decided", "get", "list_page", "preview", "release",
           "send"]
