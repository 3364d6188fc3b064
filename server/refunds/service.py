"""Refunds: create, retrieve, list. Scoped to the caller's merchant and mode.

A refund returns part of the payment (in the paid asset, at most what its charges captured), or, with `asset_id`,
the intent's unexpected funds in that asset (DESIGN §14: at most what arrived in it, confirmed and approved; the
intent's status and amounts are not touched). Both are sent by the same job (payout_job.py).

Create runs validate → load (read) → treasury balance (chain, no transaction open) → decide and persist (one write
transaction holding the intent's row lock, so concurrent refunds of one intent are decided one after another, then
the merchant's wallet account lock, as payouts take it, so that refunds and payouts together never spend more than
the merchant's available balance: tests/e2e/treasury/test_refunds_within_available.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from paygate.v1 import refunds_pb2 as pb
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import json_fields, state_machine, validate
from server.aml import AmlStatus
from server.catalogue.catalogue import Asset
from server.chains.models import ChainTransfer, TransferStatus
from server.clock import now_of
from server.context import Caller
from server.db import Database
from server.errors import MissingParameter, Unimplemented, invalid
from server.events import outbox
from server.ids import new_id
from server.paging import Page, newest_first
from server.payment_intents import service as intents
from server.payment_intents import settle
from server.payment_intents.aggregate import Loaded, load_one
from server.payment_intents.env import Env
from server.payment_intents.models import PaymentIntent
from server.payment_intents.states import Status as IntentStatus
from server.payment_intents.totals import text, units
from server.rails.base import AddressBook, InvalidAddress
from server.rails.registry import Rails, key_scheme
from server.refunds import convert
from server.refunds.errors import AboveAvailable, InsufficientFunds, InvalidPaymentIntent, RefundAmountExceeded
from server.refunds.models import Refund, RefundTransaction
from server.refunds.states import EVENT_TYPES, HOLDING, Event, Status, transition
from server.scoping import get_owned, in_scope
from server.treasury.addresses import service as addresses
from server.treasury.approvals import states as approval_states
from server.treasury.approvals import trail as approval_trail
from server.treasury.approvals.models import ApprovalActionKind, ApprovalStatus
from server.treasury.ledger import postings
from server.wallet.addresses import treasury_address

REFUNDABLE = frozenset({IntentStatus.SUCCESS, IntentStatus.PARTIAL_PAID})
# Ended intents that can still hold money: funds sent to a deposit address after the intent was refunded in full (a
# top-up), or after it was canceled or expired (`amount_received_late`, or a card paid at the provider after the
# cancel). They were captured and credited to the merchant, so they go back the way any payment does.
_ENDED_HOLDING = frozenset({IntentStatus.REFUNDED, IntentStatus.CANCELED})


def refundable(intent: PaymentIntent) -> bool:
    """Whether a refund of the intent's payment may be asked for: it succeeded (in full or in part), or it ended and
    still holds captured money that no successful refund has sent back. The amount is checked separately, against
    what the refunds in flight leave (`check_remaining`)."""
    if intent.status in REFUNDABLE:
        return True
    return intent.status in _ENDED_HOLDING and intent.amount_captured > intent.amount_refunded


@dataclass(frozen=True)
class Plan:
    """What a refund of this intent would be, read before any transaction is opened."""

    intent_id: str
    asset: Asset
    charge_id: str
    exchange_rate: Decimal
    refund_address: str
    treasury: str
    unexpected: bool = False  # refunds the intent's unexpected funds in `asset`, not its payment
    payer: str = ""  # where the money came from: the default refund address

    @property
    def to_the_payer(self) -> bool:
        return self.refund_address == self.payer


def _amount(request: pb.CreateRefundRequest) -> Decimal:
    if not request.amount:
        raise MissingParameter("amount")
    return validate.amount("amount", request.amount, allow_zero=False)


def check_address(book: AddressBook | None, field: str, value: str) -> str:
    """An address on the network of `book` (its rail), in its stored form; the rail says why it is not one."""
    if book is None:
        raise invalid(field, f"{value!r} is not an address on this network")
    try:
        return book.normalize_address(value)
    except InvalidAddress as e:
        raise invalid(field, str(e)) from None


async def destination(session: AsyncSession, env: Env, rails: Rails, network: str, given: str | None,
                      payer: str) -> str:
    """Where the refund goes: the `refund_address` given, or else the payer where the rail says a sender is its
    payer's own (not on a UTXO network: `refund_address` is required there). A given one must not be paygate's own
    (a treasury or a deposit address): the refund would read `Success` while the customer receives nothing."""
    if given is None or not given.strip():
        payouts = rails.payouts(network)
        if payouts is None or not payouts.pays_back_senders:
            raise MissingParameter("refund_address", f"refund_address: is required on {network}: the address a "
                                   "payment came from need not be the payer's own")
        return payer
    address = check_address(rails.addresses(network), "refund_address", given.strip())
    await addresses.check_not_paygate(session, env.keys, env.catalogue, network, "refund_address", address)
    return address


def _source(loaded: Loaded, asset_id: str) -> tuple[str, str, Decimal]:
    """(charge id, payer address, exchange rate) of the first approved transfer in the paid asset."""
    for charge in loaded.charges:
        for t in loaded.transfers_of(charge):
            if t.asset_id == asset_id and t.status == TransferStatus.CONFIRMED and t.aml_status == AmlStatus.APPROVED:
                return charge.id, t.from_address, charge.exchange_rate  # the rail's stored form
    raise InvalidPaymentIntent()


async def plan(db: Database, env: Env, rails: Rails, caller: Caller, request: pb.CreateRefundRequest) -> Plan:
    async with db.read() as session:
        intent = await intents.find(session, caller, request.payment_intent_id.strip())
        if intent is None or not refundable(intent) or not intent.paid_asset_id:
            raise InvalidPaymentIntent()
        full = await intents.get(session, caller, intent.id)
        asset = env.catalogue.by_id.get(intent.paid_asset_id)
        if asset is None or not asset.network:
            raise InvalidPaymentIntent()
        unsendable(rails, asset.network)
        charge_id, payer, rate = _source(full, asset.id)
        treasury = await treasury_address(session, env.keys, key_scheme(env.catalogue.networks[asset.network]),
                                          caller.merchant_id, caller.livemode, allocate=False)
        given = request.refund_address if request.HasField("refund_address") else None
        address = await destination(session, env, rails, asset.network, given, payer)
    return Plan(intent.id, asset, charge_id, rate, address, treasury or "", payer=payer)


def unsendable(rails: Rails, network: str) -> None:
    """`501 not_implemented` on a network whose rail cannot pay out (it receives only): a refund accepted there would
    wait Pending forever."""
    if rails.payouts(network) is None:
        raise Unimplemented(f"refunds on {network} cannot be sent by this gateway yet: its rail receives payments "
                            "but does not pay out")


async def check_funds(rails: Rails, p: Plan, amount: Decimal) -> None:
    """The treasury must hold the amount now; read from the chain with no transaction open."""
    balances = rails.balances(p.asset.network)
    if not p.treasury or balances is None:
        raise InsufficientFunds(p.asset.id, p.treasury or "(none)")
    held = await balances.balance(p.asset, p.treasury)
    if held < int(amount.scaleb(p.asset.decimals)):
        raise InsufficientFunds(p.asset.id, p.treasury)


async def held(session: AsyncSession, intent_id: str, asset_id: str, *, unexpected: bool = False) -> Decimal:
    """What the intent's Pending, Processing and Successful refunds in `asset_id` add up to: refunds of the
    payment, or (`unexpected`) refunds of its unexpected funds. Each kind has its own ceiling."""
    rows = await session.exec(select(col(Refund.amount)).where(Refund.payment_intent_id == intent_id,
                                                          Refund.asset_id == asset_id,
                                                          col(Refund.unexpected_funds).is_(unexpected),
                                                          col(Refund.status).in_(list(HOLDING))))
    return sum((Decimal(a) for a in rows), Decimal(0))


def _refundable(t: ChainTransfer) -> bool:
    """Confirmed and approved: unconfirmed funds may still be re-organised away; rejected ones are frozen."""
    return t.status == TransferStatus.CONFIRMED and t.aml_status == AmlStatus.APPROVED


async def unexpected_in(session: AsyncSession, intent_id: str, asset_id: str) -> Decimal:
    """The intent's unexpected funds in `asset_id` that a refund may pay back at most. Read from the intent as it
    shows them (`Loaded.unexpected_funds`), so whatever does not count as paid (another asset, a lapsed quote) is
    refundable, decided in one place (totals.counts_toward)."""
    intent = await session.get(PaymentIntent, intent_id)
    if intent is None:
        return Decimal(0)
    loaded = await load_one(session, intent)
    return sum((units(t) for _, t in loaded.unexpected_funds() if t.asset_id == asset_id and _refundable(t)),
               Decimal(0))


async def remaining(session: AsyncSession, p: Plan) -> Decimal:
    """What is left to refund: per asset, never more than the charges captured in it (a refund of the payment), or
    than arrived in it as unexpected funds (a refund of those)."""
    if p.unexpected:
        arrived = await unexpected_in(session, p.intent_id, p.asset.id)
    else:
        arrived = await intents.captured_in(session, p.intent_id, p.asset.id)
    return arrived - await held(session, p.intent_id, p.asset.id, unexpected=p.unexpected)


async def check_remaining(session: AsyncSession, p: Plan, amount: Decimal) -> None:
    left = await remaining(session, p)
    if amount > left:
        raise RefundAmountExceeded(text(max(left, Decimal(0))), p.asset.id)


async def record(session: AsyncSession, env: Env, refund: Refund, type_: str,
                 before: dict[str, object] | None) -> None:
    txs = await transactions(session, [refund.id])
    resource = convert.to_proto(env.catalogue, refund, txs.get(refund.id, []), brief=True)
    await outbox.record(session, merchant_id=refund.merchant_id, livemode=refund.livemode, type=type_,
                        resource=resource, before=before)


async def snapshot(session: AsyncSession, env: Env, refund: Refund) -> dict[str, object]:
    txs = await transactions(session, [refund.id])
    return outbox.snapshot(convert.to_proto(env.catalogue, refund, txs.get(refund.id, []), brief=True))


async def move(session: AsyncSession, env: Env, refund: Refund, event: Event, **facts: object) -> None:
    """One transition, its facts, `refund.updated`, and `refund.succeeded`/`refund.failed` when it ends there: for
    refunds sent on a chain (refunds/payout_job.py) and by a card provider (cards/refunds.py) alike."""
    before = await snapshot(session, env, refund)
    state_machine.enter(refund, transition(refund.status, event), facts, now_of(session))
    session.add(refund)
    await session.flush()
    await record(session, env, refund, "refund.updated", before)
    if type_ := EVENT_TYPES.get(Status(refund.status)):
        await record(session, env, refund, type_, None)


@dataclass(frozen=True)
class Details:
    """The refund's free fields, validated."""

    reason: str = ""
    description: str = ""
    metadata: dict[str, object] | None = None


async def create(db: Database, env: Env, rails: Rails, caller: Caller, request: pb.CreateRefundRequest) -> Refund:
    amount = _amount(request)
    if request.reason not in convert.REASON_NAMES and request.reason != pb.REFUND_REASON_UNSPECIFIED:
        raise invalid("reason", "use one of " + ", ".join(convert.REASONS))
    details = Details(convert.REASON_NAMES.get(request.reason, ""),
                      validate.text("description", request.description, max_length=1000),
                      json_fields.metadata_of(request.metadata))
    if request.HasField("asset_id"):
        address = request.refund_address if request.HasField("refund_address") else None
        return await refund_unexpected(db, env, rails, caller, request.payment_intent_id, request.asset_id, amount,
                                       address, details)
    return await _create(db, env, rails, caller, await plan(db, env, rails, caller, request), amount, details)


async def refund_unexpected(db: Database, env: Env, rails: Rails, caller: Caller, intent_id: str, asset_id: str,
                            amount: Decimal | None, refund_address: str | None,
                            details: Details = Details()) -> Refund:
    """Refunds the intent's unexpected funds in `asset_id` (DESIGN §14), whatever the intent's status: `amount`
    (all that is left when None) to `refund_address`, or to the sender of the first such transfer. The API's
    `POST /v1/refunds` with `asset_id` and the operator's `paygate refunds unexpected` both come here."""
    p = await plan_unexpected(db, env, rails, caller, intent_id, asset_id, refund_address)
    if amount is None:
        async with db.read() as session:
            amount = await remaining(session, p)
        if amount <= 0:
            raise RefundAmountExceeded("0", p.asset.id)
    return await _create(db, env, rails, caller, p, amount, details)


async def plan_unexpected(db: Database, env: Env, rails: Rails, caller: Caller, intent_id: str, asset_id: str,
                          refund_address: str | None) -> Plan:
    asset_id = asset_id.strip()
    async with db.read() as session:
        intent = await intents.find(session, caller, intent_id.strip())
        if intent is None:
            raise InvalidPaymentIntent()
        full = await intents.get(session, caller, intent.id)
        arrivals = [(c, t) for c, t in full.unexpected_funds() if t.asset_id == asset_id and _refundable(t)]
        asset = env.catalogue.by_id.get(asset_id)
        if not arrivals or asset is None or not asset.network:
            raise invalid("asset_id", f"no confirmed and approved unexpected funds in {asset_id!r} on this payment "
                                      "intent (to refund the payment itself, leave asset_id out)")
        unsendable(rails, asset.network)
        charge, first = arrivals[0]
        treasury = await treasury_address(session, env.keys, key_scheme(env.catalogue.networks[asset.network]),
                                          caller.merchant_id, caller.livemode, allocate=False)
        payer = first.from_address
        address = await destination(session, env, rails, asset.network, refund_address, payer)
    # No exchange rate: the funds paid nothing, so their refund is worth nothing in the intent's currency.
    return Plan(intent.id, asset, charge.id, Decimal(0), address, treasury or "", unexpected=True, payer=payer)


async def _create(db: Database, env: Env, rails: Rails, caller: Caller, p: Plan, amount: Decimal,
                  details: Details) -> Refund:
    exponent = amount.as_tuple().exponent
    if isinstance(exponent, int) and -exponent > p.asset.decimals:
        raise invalid("amount", f"at most {p.asset.decimals} decimal places in {p.asset.id}")
    # The checks run in the spec's order (DESIGN §12): the intent, the amount against what is left, then the
    # treasury's balance. The amount is checked again under the intent's lock below.
    async with db.read() as session:
        await check_remaining(session, p, amount)
    await check_funds(rails, p, amount)
    async with db.transaction() as session:
        intent = await settle.lock(session, p.intent_id)
        if intent is None or (not p.unexpected and not refundable(intent)):
            raise InvalidPaymentIntent()  # refunded in full (or changed) since the read above
        await check_remaining(session, p, amount)
        # The chain's balance above also counts coin that is not the merchant's to give (fees, locked, unrecorded).
        free = await postings.available(session, caller.merchant_id, caller.livemode, p.asset.id, lock=True)
        if amount > free:
            raise AboveAvailable(text(amount), text(max(free, Decimal(0))), p.asset.id)
        now = db.clock.now()
        needs = await approvals_required(session, caller, p)
        refund = Refund(
            id=new_id("rf"), merchant_id=caller.merchant_id, livemode=caller.livemode, payment_intent_id=intent.id,
            charge_id=p.charge_id, asset_id=p.asset.id, network=p.asset.network, decimals=p.asset.decimals,
            amount=amount, refund_address=p.refund_address, reason=details.reason,
            description=details.description, metadata_=details.metadata or {}, exchange_rate=p.exchange_rate,
            unexpected_funds=p.unexpected, status=Status.PENDING, created=now, updated=now,
            approval_status=ApprovalStatus.PENDING if needs else ApprovalStatus.NOT_REQUIRED,
            approvals_required=needs, created_by_key=caller.key_id)
        session.add(refund)
        await session.flush()
        approval_trail.act(session, refund, ApprovalActionKind.CREATE, caller.key_id)
        await record(session, env, refund, "refund.created", None)
    return refund


async def approvals_required(session: AsyncSession, caller: Caller, p: Plan) -> int:
    """Four eyes (DESIGN §15, §16): money sent back where it came from needs none; sent to an address the caller
    names it is a payout in all but name, so it needs the approvals a payout above the threshold needs, whatever its
    amount (a threshold would let a stolen key drain a merchant in refunds just below it), and in live mode it is
    refused as a payout is while the merchant has no approver key (`approval_trail.ApprovalRequired`)."""
    if p.to_the_payer:
        return 0
    rule = await approval_trail.rule_of(session, caller.merchant_id, caller.livemode)
    approval_trail.refuse_unless_allowed(rule, caller.merchant_id, "refunds to an address other than the payer's")
    return max(rule.approvals, 0)


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


async def lock_owned(session: AsyncSession, caller: Caller, refund_id: str) -> Refund:
    """The caller's refund, locked until the end of the transaction (404 for another merchant's)."""
    return await get_owned(session, Refund, refund_id.strip(), caller, "refund", lock=True)


async def approved(session: AsyncSession, env: Env, refund: Refund) -> None:
    """Its approvers approved a Pending refund (locked): the sender may take it."""
    before = await snapshot(session, env, refund)
    refund.approval_status = approval_states.next_status(refund.approval_status, approval_states.Event.APPROVE)
    refund.updated = now_of(session)
    session.add(refund)
    await session.flush()
    await record(session, env, refund, "refund.updated", before)


async def list_page(session: AsyncSession, caller: Caller, page: Page, request: pb.ListRefundsRequest
                    ) -> tuple[list[tuple[Refund, list[RefundTransaction]]], int]:
    where = in_scope(Refund, caller)
    if request.payment_intent:
        where.append(col(Refund.payment_intent_id) == request.payment_intent.strip())
    rows, total = await newest_first(session, Refund, where, page)
    txs = await transactions(session, [r.id for r in rows])
    return [(r, txs[r.id]) for r in rows], total

