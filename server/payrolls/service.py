"""Payrolls (`/v1/payrolls`, DESIGN §17): many payouts to the merchant's verified payout addresses in one call.

A payroll is made from its items, all in one asset (`coin` + `network`, as a payout's `source_coin` with
`receive_asset_id`), each to one of the merchant's verified payout addresses on that network; bad input is refused
whole, naming `items[i].<field>`, and nothing is written. Until it is confirmed it is `created` and holds nothing.

Confirming it (or creating it with `auto_approve`, in the same transaction as its making) makes every item's payout
in ONE transaction, with the merchant's wallet account locked as `payouts.create` does: the items' sum is checked
against the available balance once (all of it or nothing: `insufficient_funds`), each item's amount moves available
→ locked, and four eyes (`approval_trail.required`) is decided once on the payroll's total. The payouts are ordinary
ones (`payouts.payroll_id`): the sender, crash recovery, events and `GET /v1/payouts/{id}` treat them as any other.
When approval is needed they are all `pending` and the payroll is approved or rejected as one through the approval
API (server/treasury/approvals/service.py, resource type `payroll`); an item's payout is never decided on its own.

A payroll's status is not stored: `status_of` computes it from its items' payouts each time it is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from paygate.v1 import payrolls_pb2 as pb
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import validate
from server.catalogue.catalogue import Asset
from server.clock import now_of
from server.context import Caller
from server.errors import Conflict, MissingParameter, invalid
from server.ids import new_id
from server.merchants.models import Merchant
from server.money import compute
from server.paging import Page, newest_first
from server.payrolls.convert import item_to_proto, to_proto
from server.payrolls.models import Payroll, PayrollItem
from server.payrolls.states import STATUSES, approval_status_of, status_of
from server.rails.base import ChainUnavailable, InvalidAddress
from server.scoping import get_owned, in_scope
from server.treasury.addresses import service as addresses
from server.treasury.addresses.models import AddressStatus, MerchantAddress
from server.treasury.approvals import trail as approval_trail
from server.treasury.approvals.models import ApprovalActionKind, ApprovalStatus
from server.treasury.env import TreasuryEnv
from server.treasury.ledger import postings
from server.treasury.ledger.listeners import treasury_of
from server.treasury.ledger.models import Account, CauseType
from server.treasury.ledger.postings import Holder, Scope
from server.treasury.payouts import service as payouts
from server.treasury.payouts.models import Payout as PayoutRow
from server.treasury.payouts.models import PayoutStatus
from server.treasury.sweeps.service import native_of

RESOURCE = "payroll"
MAX_ITEMS = 100
PAYMENT_METHODS = ("", "normal")


class UnexpectedState(Conflict):
    reason = "payroll_unexpected_state"


@dataclass(frozen=True)
class ApprovalView:
    """The payroll as the approval API reads it (the fields it shares with a payout's approval)."""

    id: str
    merchant_id: str
    livemode: bool
    status: str
    approval_status: str
    approvals_required: int
    created: int
    created_by_key: str


def approval_view(payroll: Payroll, items: list[PayoutRow]) -> ApprovalView:
    return ApprovalView(id=payroll.id, merchant_id=payroll.merchant_id, livemode=payroll.livemode,
                        status=status_of(bool(payroll.confirmed_at), [p.status for p in items]),
                        approval_status=approval_status_of(payroll, items),
                        approvals_required=payroll.approvals_required, created=payroll.confirmed_at or
                        payroll.created_at, created_by_key=payroll.confirmed_by_key)


# ---------------------------------------------------------------------------------------------------- input


@dataclass(frozen=True)
class Line:
    position: int
    external_id: str
    name: str
    email: str
    phone: str
    amount: Decimal
    coin: str
    address: MerchantAddress
    payment_method: str


def _network_named(rt: TreasuryEnv, asset: Asset, named: str) -> bool:
    """The catalogue's network id (`ETH-TEST`, what `asset.network` holds) or the network's name, in any case."""
    network = rt.catalogue.networks.get(asset.network)
    wanted = named.lower()
    return asset.network.lower() == wanted or (network is not None and network.display_name.lower() == wanted)


def _asset_of(rt: TreasuryEnv, caller: Caller, where: str, coin: str, network: str) -> Asset:
    on_network = [a for a in rt.catalogue.for_mode(caller.livemode)
                  if not a.is_fiat and rt.rails.payouts(a.network) is not None and _network_named(rt, a, network)]
    if not on_network:
        raise invalid(f"{where}.network", f"{network!r} is not a network paygate pays out on in this mode")
    found = next((a for a in on_network if a.coin.lower() == coin.lower()), None)
    if found is None:
        raise invalid(f"{where}.coin", f"{coin!r} is not a coin paygate pays out on {network} "
                                       f"(one of {', '.join(sorted(a.coin for a in on_network))})")
    return found


async def _verified(session: AsyncSession, rt: TreasuryEnv, caller: Caller, asset: Asset, field: str,
                    address: str) -> MerchantAddress:
    book = rt.rails.addresses(asset.network)
    try:
        if book is None:
            raise InvalidAddress(address)
        stored = book.normalize_address(address)
    except InvalidAddress:
        raise invalid(field, "not an address on this network") from None
    row = (await session.exec(select(MerchantAddress).where(
        MerchantAddress.merchant_id == caller.merchant_id, MerchantAddress.livemode == caller.livemode,
        MerchantAddress.network == asset.network, MerchantAddress.address == stored,
        MerchantAddress.status == AddressStatus.VERIFIED, MerchantAddress.deleted_at == 0))).first()
    if row is None:
        raise invalid(field, f"not a verified payout address of the merchant on {asset.network}")
    addresses.check_usable(row, field, now_of(session))
    return row


async def _lines(session: AsyncSession, rt: TreasuryEnv, caller: Caller,
                 request: pb.CreateDirectPayrollRequest) -> tuple[Asset, list[Line]]:
    if not request.items:
        raise MissingParameter("items")
    if len(request.items) > MAX_ITEMS:
        raise invalid("items", f"at most {MAX_ITEMS} items")
    asset: Asset | None = None
    out: list[Line] = []
    for i, item in enumerate(request.items):
        where = f"items[{i}]"
        for name in ("amount", "coin", "network", "address"):
            if not getattr(item, name).strip():
                raise MissingParameter(f"{where}.{name}")
        method = item.payment_method.strip()
        if method not in PAYMENT_METHODS:
            raise invalid(f"{where}.payment_method", "must be normal (paygate pays payroll items on chain)")
        this = _asset_of(rt, caller, where, item.coin.strip(), item.network.strip())
        if asset is None:
            asset = this
        elif this.id != asset.id:
            raise invalid(f"{where}.coin", f"a payroll pays out one asset: {asset.id} (items[0]), not {this.id}")
        amount = validate.amount(f"{where}.amount", item.amount.strip(), allow_zero=False, decimals=this.decimals)
        row = await _verified(session, rt, caller, this, f"{where}.address", item.address.strip())
        out.append(Line(
            position=i, external_id=validate.text(f"{where}.external_id", item.external_id.strip()),
            name=validate.text(f"{where}.name", item.name.strip()), email=validate.email(f"{where}.email", item.email),
            phone=validate.phone(f"{where}.phone", item.phone), amount=amount, coin=this.coin, address=row,
            payment_method="normal"))
    assert asset is not None
    return asset, out


# ---------------------------------------------------------------------------------------------------- confirming


@dataclass(frozen=True)
class Prepared:
    """What a confirmation reads before its transaction: rates for the rule, network fee estimates."""

    known: approval_trail.Prices
    fees: dict[str, Decimal]  # by address


async def _prepare(rt: TreasuryEnv, caller: Caller, asset: Asset, lines: list[tuple[str, Decimal]]) -> Prepared:
    """`lines`: each item's (address, amount). Rates and fees may be network I/O: read with no transaction open."""
    async with rt.db.read() as session:
        rule = await approval_trail.rule_of(session, caller.merchant_id, caller.livemode)
        approval_trail.refuse_unless_allowed(rule, caller.merchant_id, "payrolls")
        treasury = await treasury_of(rt, session, asset.network, caller.merchant_id, caller.livemode)
        merchant = await session.get(Merchant, caller.merchant_id)
        summed = await approval_trail.recent_assets(session, rule, caller.merchant_id, caller.livemode,
                                                    rt.clock.now())
    if not treasury:
        raise payouts.InsufficientFunds("items: the merchant has no treasury in this mode", field="items")
    known = await approval_trail.prices(rt.rates, rt.catalogue, merchant, rule, summed | {asset.id})
    native = native_of(rt.catalogue, asset.network)
    assert native is not None
    fees: dict[str, Decimal] = {}
    for address, amount in lines:
        if address in fees:
            continue
        try:
            fee = await payouts.estimated_fee(rt, asset, treasury, address, amount)
        except ChainUnavailable:
            fee = 0
        fees[address] = Decimal(fee).scaleb(-native.decimals)
    return Prepared(known, fees)


async def _confirm_in(session: AsyncSession, rt: TreasuryEnv, caller: Caller, payroll: Payroll,
                      items: list[PayrollItem], prepared: Prepared) -> None:
    """Every item's payout, in the caller's transaction; raises (and so writes nothing) when any of it cannot be."""
    if payroll.confirmed_at:
        raise UnexpectedState(f"payroll: payroll {payroll.id} is already confirmed")
    # One payout or refund at a time per merchant and mode: the balance cannot change until this commits.
    free = await postings.available(session, payroll.merchant_id, payroll.livemode, payroll.asset_id, lock=True)
    if payroll.total_amount > free:
        raise payouts.InsufficientFunds(
            f"items: the payroll's total {validate.money_text(payroll.total_amount)} is more than the available "
            f"{validate.money_text(free)}", field="items")
    now = rt.clock.now()
    needs = await approval_trail.required(session, payroll.merchant_id, payroll.livemode, payroll.asset_id,
                                          payroll.total_amount, prepared.known, now)
    treasury = await treasury_of(rt, session, payroll.network, payroll.merchant_id, payroll.livemode)
    asset = rt.catalogue.by_id[payroll.asset_id]
    wallets = {a.id: a for a in await session.exec(select(MerchantAddress).where(
        col(MerchantAddress.id).in_(sorted({i.merchant_address_id for i in items}))))}
    rows: list[tuple[PayrollItem, PayoutRow]] = []
    for item in items:
        field = f"items[{item.position}].address"
        wallet = wallets.get(item.merchant_address_id)
        if wallet is None or wallet.status != AddressStatus.VERIFIED or wallet.deleted_at:
            raise invalid(field, "no longer a verified payout address of the merchant")
        addresses.check_usable(wallet, field, now)
        rows.append((item, PayoutRow(
            id=new_id("payout"), merchant_id=payroll.merchant_id, livemode=payroll.livemode, asset_id=asset.id,
            network=asset.network, decimals=asset.decimals, amount=item.amount,
            network_fee=prepared.fees.get(item.address, Decimal(0)), merchant_address_id=wallet.id,
            address=wallet.address, status=PayoutStatus.PENDING if needs else PayoutStatus.APPROVED,
            approval_status=ApprovalStatus.PENDING if needs else ApprovalStatus.NOT_REQUIRED,
            approvals_required=needs, created_by_key=caller.key_id, external_id=item.external_id,
            payroll_id=payroll.id, created=now, updated=now)))
    payroll.confirmed_at, payroll.confirmed_by_key, payroll.approvals_required = now, caller.key_id, needs
    payroll.updated_at = now
    session.add(payroll)
    for _, row in rows:
        session.add(row)
    await session.flush()
    # The payroll's own trail: the approval instance the approvers decide.
    approval_trail.act(session, approval_view(payroll, [r for _, r in rows]), ApprovalActionKind.CREATE,  # type: ignore[arg-type]
                       caller.key_id)
    for item, row in rows:
        approval_trail.act(session, row, ApprovalActionKind.CREATE, caller.key_id)
        await postings.post(session, Scope(row.merchant_id, row.livemode, row.asset_id, row.network),
                            CauseType.PAYOUT, row.id,
                            {Holder(Account.AVAILABLE, treasury): -row.amount,
                             Holder(Account.LOCKED, treasury): row.amount})
        await payouts.record(session, rt, row, "payout.created", None)
        item.payout_id = row.id
        session.add(item)
    await session.flush()


async def create(rt: TreasuryEnv, caller: Caller, request: pb.CreateDirectPayrollRequest) -> str:
    """The new payroll's id; with `auto_approve`, confirmed in the same transaction (refused whole, nothing made)."""
    external_id = validate.text("external_id", request.external_id.strip())
    async with rt.db.read() as session:
        asset, lines = await _lines(session, rt, caller, request)
    with compute("items"):
        total = sum((line.amount for line in lines), Decimal(0))
    prepared = (await _prepare(rt, caller, asset, [(line.address.address, line.amount) for line in lines])
                if request.auto_approve else None)
    async with rt.db.transaction() as session:
        now = rt.clock.now()
        payroll = Payroll(id=new_id("payroll"), merchant_id=caller.merchant_id, livemode=caller.livemode,
                          external_id=external_id, asset_id=asset.id, network=asset.network, total_amount=total,
                          item_count=len(lines), created_by_key=caller.key_id, created_at=now, updated_at=now)
        items = [PayrollItem(id=new_id("payroll_item"), payroll_id=payroll.id, position=line.position,
                             external_id=line.external_id, name=line.name, email=line.email, phone=line.phone,
                             amount=line.amount, coin=line.coin, merchant_address_id=line.address.id,
                             address=line.address.address, payment_method=line.payment_method, created_at=now)
                 for line in lines]
        session.add(payroll)
        await session.flush()
        for item in items:
            session.add(item)
        await session.flush()
        if prepared is not None:
            await _confirm_in(session, rt, caller, payroll, items, prepared)
    return payroll.id


async def confirm(rt: TreasuryEnv, caller: Caller, payroll_id: str) -> str:
    async with rt.db.read() as session:
        payroll = await get(session, caller, payroll_id)
        items = await items_of(session, [payroll.id])
    if payroll.confirmed_at:
        raise UnexpectedState(f"payroll: payroll {payroll.id} is already confirmed")
    asset = rt.catalogue.by_id.get(payroll.asset_id)
    if asset is None:
        raise UnexpectedState(f"payroll: asset {payroll.asset_id} is no longer paid out")
    prepared = await _prepare(rt, caller, asset, [(i.address, i.amount) for i in items[payroll.id]])
    async with rt.db.transaction() as session:
        locked = await get(session, caller, payroll.id, lock=True)
        await _confirm_in(session, rt, caller, locked, (await items_of(session, [locked.id]))[locked.id], prepared)
    return payroll.id


# ---------------------------------------------------------------------------------------------------- reading


async def get(session: AsyncSession, caller: Caller, payroll_id: str, *, lock: bool = False) -> Payroll:
    return await get_owned(session, Payroll, payroll_id.strip(), caller, RESOURCE, lock=lock)


async def items_of(session: AsyncSession, payroll_ids: list[str]) -> dict[str, list[PayrollItem]]:
    out: dict[str, list[PayrollItem]] = {i: [] for i in payroll_ids}
    if payroll_ids:
        for item in await session.exec(select(PayrollItem).where(col(PayrollItem.payroll_id).in_(payroll_ids))
                                       .order_by(col(PayrollItem.payroll_id), col(PayrollItem.position))):
            out[item.payroll_id].append(item)
    return out


async def payouts_of(session: AsyncSession, payroll_ids: list[str], *, lock: bool = False,
                     ) -> dict[str, list[PayoutRow]]:
    """The item payouts of each payroll, oldest first; `lock`: locked until the transaction ends."""
    out: dict[str, list[PayoutRow]] = {i: [] for i in payroll_ids}
    if payroll_ids:
        query = (select(PayoutRow).where(col(PayoutRow.payroll_id).in_(payroll_ids))
                 .order_by(col(PayoutRow.sort_key)))
        if lock:
            query = query.with_for_update().execution_options(populate_existing=True)
        for row in await session.exec(query):
            assert row.payroll_id is not None
            out[row.payroll_id].append(row)
    return out


@dataclass(frozen=True)
class Shown:
    payroll: pb.Payroll
    items: list[pb.PayrollItem]


async def show(session: AsyncSession, rt: TreasuryEnv, rows: list[Payroll]) -> list[Shown]:
    """The payrolls with their items, in four queries whatever their number."""
    ids = [r.id for r in rows]
    items, made = await items_of(session, ids), await payouts_of(session, ids)
    by_id = {p.id: p for each in made.values() for p in each}
    txs = await payouts.transactions(session, list(by_id))
    out = []
    for r in rows:
        out.append(Shown(to_proto(r, made[r.id]), [
            item_to_proto(rt.catalogue, r, i, by_id.get(i.payout_id or ""), txs.get(i.payout_id or "", []))
            for i in items[r.id]]))
    return out


async def show_items(session: AsyncSession, rt: TreasuryEnv, found: list[tuple[Payroll, PayrollItem]],
                     ) -> list[pb.PayrollItem]:
    ids = [i.payout_id for _, i in found if i.payout_id]
    made = {p.id: p for p in await session.exec(select(PayoutRow).where(col(PayoutRow.id).in_(ids)))} if ids else {}
    txs = await payouts.transactions(session, ids)
    return [item_to_proto(rt.catalogue, p, i, made.get(i.payout_id or ""), txs.get(i.payout_id or "", []))
            for p, i in found]


async def list_page(session: AsyncSession, caller: Caller, page: Page, *, external_id: str, payroll_id: str,
                    status: str) -> tuple[list[Payroll], int]:
    where: list[Any] = in_scope(Payroll, caller)
    if external_id:
        where.append(col(Payroll.external_id) == external_id)
    if payroll_id:
        where.append(col(Payroll.id) == payroll_id)
    if not status:
        return await newest_first(session, Payroll, where, page)
    # The status is computed, not stored (module docstring): the matching payrolls are found by computing it.
    rows = list(await session.exec(select(Payroll).where(*where).order_by(col(Payroll.sort_key).desc())))
    made = await _statuses(session, [r.id for r in rows])
    matched = [r for r in rows if status_of(bool(r.confirmed_at), made.get(r.id, ())) == status]
    return matched[page.offset:page.offset + page.size], len(matched)


async def _statuses(session: AsyncSession, payroll_ids: list[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for chunk in range(0, len(payroll_ids), 500):
        ids = payroll_ids[chunk:chunk + 500]
        for pid, status in await session.exec(select(col(PayoutRow.payroll_id), col(PayoutRow.status))
                                              .where(col(PayoutRow.payroll_id).in_(ids)).distinct()):
            out.setdefault(str(pid), set()).add(status)
    return out


async def list_items(session: AsyncSession, caller: Caller, page: Page, *, payroll_id: str, external_id: str,
                     item_external_id: str, employee_name: str) -> tuple[list[tuple[Payroll, PayrollItem]], int]:
    where: list[Any] = [*in_scope(Payroll, caller), col(PayrollItem.payroll_id) == col(Payroll.id)]
    if payroll_id:
        where.append(col(Payroll.id) == payroll_id)
    if external_id:
        where.append(col(Payroll.external_id) == external_id)
    if item_external_id:
        where.append(col(PayrollItem.external_id) == item_external_id)
    if employee_name:
        where.append(col(PayrollItem.name) == employee_name)
    total = (await session.exec(select(sa.func.count()).select_from(PayrollItem).join(
        Payroll, col(PayrollItem.payroll_id) == col(Payroll.id)).where(*where))).one()
    found = await session.exec(select(Payroll, PayrollItem).where(*where)
                               .order_by(col(Payroll.sort_key).desc(), col(PayrollItem.position))
                               .offset(page.offset).limit(page.size))
    return [(p, i) for p, i in found], int(total)


__all__ = ["STATUSES", "ApprovalView", "UnexpectedState", "approval_view", "confirm", "create", "get",
           "list_items", "list_page", "payouts_of", "show", "show_items", "status_of"]
