"""Refunds: create, retrieve, list. Scoped to the caller's merchant and mode.

Create runs validate → load (read) → treasury balance (chain, no transaction open) → decide and persist (one write
transaction holding the intent's row lock, so concurrent refunds of one intent are decided one after another).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import sqlalchemy as sa
from paygate.v1 import refunds_pb2 as pb
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from web3 import Web3

from server import clock, structs, validate
from server.assets.catalogue import Asset
from server.db import Database
from server.errors import MissingParameter, invalid
from server.events import outbox
from server.ids import new_id
from server.paging import Page
from server.payment_intents import service as intents
from server.payment_intents import settle
from server.payment_intents.aggregate import Loaded
from server.payment_intents.env import Env
from server.payment_intents.states import Status as IntentStatus
from server.payment_intents.totals import text
from server.refunds import chain, convert
from server.refunds.errors import InsufficientFunds, InvalidPaymentIntent, RefundAmountExceeded
from server.refunds.models import Refund, RefundTransaction
from server.refunds.states import HOLDING, Status
from server.rpc.context import Caller
from server.scoping import get_owned
from server.wallet.addresses import treasury_address

REFUNDABLE = frozenset({IntentStatus.SUCCESS, IntentStatus.PARTIAL_PAID})


@dataclass(frozen=True)
class Plan:
    """What a refund of this intent would be, read before any transaction is opened."""

    intent_id: str
    asset: Asset
    charge_id: str
    exchange_rate: Decimal
    refund_address: str
    treasury: str


def _amount(request: pb.CreateRefundRequest) -> Decimal:
    if not request.amount:
        raise MissingParameter("amount")
    return validate.amount("amount", request.amount, allow_zero=False)


def check_address(field: str, value: str) -> str:
    """An EVM address (any case; a mixed-case one must carry a valid checksum), stored lower-case."""
    if not Web3.is_address(value):
        raise invalid(field, f"{value!r} is not an address on this network")
    return value.lower()


def _source(loaded: Loaded, asset_id: str) -> tuple[str, str, Decimal]:
    """(charge id, payer address, exchange rate) of the first approved transfer in the paid asset."""
    for charge in loaded.charges:
        for t in loaded.transfers_of(charge):
            if t.asset_id == asset_id and t.status == "confirmed" and t.aml_status == "approved":
                return charge.id, t.from_address.lower(), charge.exchange_rate
    raise InvalidPaymentIntent()


async def plan(db: Database, env: Env, caller: Caller, request: pb.CreateRefundRequest) -> Plan:
    async with db.read() as session:
        intent = await intents.find(session, caller, request.payment_intent_id.strip())
        if intent is None or intent.status not in REFUNDABLE or not intent.paid_asset_id:
            raise InvalidPaymentIntent()
        full = await intents.get(session, caller, intent.id)
        asset = env.catalogue.by_id.get(intent.paid_asset_id)
        if asset is None or not asset.network:
            raise InvalidPaymentIntent()
        charge_id, payer, rate = _source(full, asset.id)
        treasury = await treasury_address(session, env.keys, caller.merchant_id, caller.livemode, allocate=False)
    address = check_address("refund_address", request.refund_address.strip()) \
        if request.HasField("refund_address") and request.refund_address.strip() else payer
    return Plan(intent.id, asset, charge_id, rate, address, (treasury or "").lower())


async def check_funds(env: Env, p: Plan, amount: Decimal) -> None:
    """The treasury must hold the amount now; read from the chain with no transaction open."""
    net = env.catalogue.networks.get(p.asset.network)
    if not p.treasury or net is None or not net.rpc_url:
        raise InsufficientFunds(p.asset.id, p.treasury or "(none)")
    held = await chain.balance(net.rpc_url, p.asset, p.treasury)
    if held < int(amount.scaleb(p.asset.decimals)):
        raise InsufficientFunds(p.asset.id, p.treasury)


async def held(session: AsyncSession, intent_id: str, asset_id: str) -> Decimal:
    """What the intent's Pending, Processing and Successful refunds in `asset_id` add up to."""
    rows = await session.exec(select(col(Refund.amount)).where(Refund.payment_intent_id == intent_id,
                                                          Refund.asset_id == asset_id,
                                                          col(Refund.status).in_(list(HOLDING))))
    return sum((Decimal(a) for a in rows), Decimal(0))


async def check_remaining(session: AsyncSession, p: Plan, amount: Decimal) -> None:
    """Per asset: a refund never pays out more of an asset than its charges captured in that asset."""
    remaining = await intents.captured_in(session, p.intent_id, p.asset.id) - await held(session, p.intent_id,
                                                                                         p.asset.id)
    if amount > remaining:
        raise RefundAmountExceeded(text(max(remaining, Decimal(0))), p.asset.id)


async def record(session: AsyncSession, env: Env, refund: Refund, type_: str,
                 before: dict[str, object] | None) -> None:
    txs = await transactions(session, [refund.id])
    resource = convert.to_proto(env.catalogue, refund, txs.get(refund.id, []), brief=True)
    previous = None if before is None else outbox.changed(before, outbox.snapshot(resource))
    await outbox.record(session, merchant_id=refund.merchant_id, livemode=refund.livemode, type=type_,
                        resource=resource, previous_attributes=previous)


async def snapshot(session: AsyncSession, env: Env, refund: Refund) -> dict[str, object]:
    txs = await transactions(session, [refund.id])
    return outbox.snapshot(convert.to_proto(env.catalogue, refund, txs.get(refund.id, []), brief=True))


async def create(db: Database, env: Env, caller: Caller, request: pb.CreateRefundRequest) -> Refund:
    amount = _amount(request)
    if request.reason not in convert.REASON_NAMES and request.reason != pb.REFUND_REASON_UNSPECIFIED:
        raise invalid("reason", "use one of " + ", ".join(convert.REASONS))
    description = validate.text("description", request.description, max_length=1000)
    metadata = structs.metadata_of(request.metadata)
    p = await plan(db, env, caller, request)
    exponent = amount.as_tuple().exponent
    if isinstance(exponent, int) and -exponent > p.asset.decimals:
        raise invalid("amount", f"at most {p.asset.decimals} decimal places in {p.asset.id}")
    # The checks run in the spec's order (DESIGN §12): the intent, the amount against what is left, then the
    # treasury's balance. The amount is checked again under the intent's lock below.
    async with db.read() as session:
        await check_remaining(session, p, amount)
    await check_funds(env, p, amount)
    async with db.transaction() as session:
        intent = await settle.lock(session, p.intent_id)
        if intent is None or intent.status not in REFUNDABLE:
            raise InvalidPaymentIntent()  # refunded in full (or changed) since the read above
        await check_remaining(session, p, amount)
        now = clock.now()
        refund = Refund(
            id=new_id("rf"), merchant_id=caller.merchant_id, livemode=caller.livemode, payment_intent_id=intent.id,
            charge_id=p.charge_id, asset_id=p.asset.id, network=p.asset.network, decimals=p.asset.decimals,
            amount=amount, refund_address=p.refund_address, reason=convert.REASON_NAMES.get(request.reason, ""),
            description=description, metadata_=metadata, exchange_rate=p.exchange_rate, status=Status.PENDING,
            created=now, updated=now)
        session.add(refund)
        await session.flush()
        await record(session, env, refund, "refund.created", None)
    return refund


async def transactions(session: AsyncSession, refund_ids: list[str]) -> dict[str, list[RefundTransaction]]:
    out: dict[str, list[RefundTransaction]] = {i: [] for i in refund_ids}
    if refund_ids:
        rows = await session.exec(select(RefundTransaction).where(col(RefundTransaction.refund_id).in_(refund_ids))
                                  .order_by(col(RefundTransaction.created_at), col(RefundTransaction.nonce)))
        for t in rows:
            out[t.refund_id].append(t)
    return out


async def get(session: AsyncSession, caller: Caller, refund_id: str) -> tuple[Refund, list[RefundTransaction]]:
    refund = await get_owned(session, Refund, refund_id.strip(), caller, "refund")
    return refund, (await transactions(session, [refund.id]))[refund.id]


async def list_page(session: AsyncSession, caller: Caller, page: Page, request: pb.ListRefundsRequest
                    ) -> tuple[list[tuple[Refund, list[RefundTransaction]]], int]:
    where = [col(Refund.merchant_id) == caller.merchant_id, col(Refund.livemode) == caller.livemode]
    if request.payment_intent:
        where.append(col(Refund.payment_intent_id) == request.payment_intent.strip())
    total = (await session.exec(select(sa.func.count()).select_from(Refund).where(*where))).one()
    rows = list(await session.exec(select(Refund).where(*where).order_by(col(Refund.sort_key).desc())
                                   .offset(page.offset).limit(page.size)))
    txs = await transactions(session, [r.id for r in rows])
    return [(r, txs[r.id]) for r in rows], int(total)

