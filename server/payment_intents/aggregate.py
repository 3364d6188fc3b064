"""An intent with everything its API shape shows: charges, their transfers, the customer, the merchant's name."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.chains.models import ChainTransfer, TransferStatus
from server.customers.models import Customer
from server.invoices.models import Invoice
from server.merchants.models import Merchant
from server.payment_intents import totals
from server.payment_intents.models import Charge, ChargeTransfer, PaymentIntent
from server.refunds.models import Refund, RefundTransaction


@dataclass
class Loaded:
    intent: PaymentIntent
    charges: list[Charge] = field(default_factory=list)  # oldest first
    # Every transfer to each charge's deposit address, by charge id, oldest first (in any asset).
    transfers: dict[str, list[ChainTransfer]] = field(default_factory=dict)
    customer: Customer | None = None
    merchant_name: str = ""
    # The refunds of each charge, by charge id, oldest first, each with its transactions (a charge shows them).
    refunds: dict[str, list[tuple[Refund, list[RefundTransaction]]]] = field(default_factory=dict)
    # The invoice this intent pays, if any (its subscription is the intent's `subscription`).
    invoice: Invoice | None = None

    def transfers_of(self, charge: Charge) -> list[ChainTransfer]:
        """The transfers that pay `charge`: only those that count (totals.counts_toward)."""
        return totals.split(charge, self.transfers.get(charge.id, []), self.intent.paid_asset_id,
                            self.intent.currency)[0]

    def unexpected_funds(self) -> list[tuple[Charge, ChainTransfer]]:
        """Transfers that do not count (totals.counts_toward), not reverted: shown, never counted as paid."""
        return [(c, t) for c in self.charges
                for t in totals.split(c, self.transfers.get(c.id, []), self.intent.paid_asset_id,
                                     self.intent.currency)[1]
                if t.status != TransferStatus.REVERTED]

    @property
    def latest_charge(self) -> Charge | None:
        return self.charges[-1] if self.charges else None


async def load(session: AsyncSession, intents: list[PaymentIntent]) -> list[Loaded]:
    if not intents:
        return []
    ids = [i.id for i in intents]
    charges = list(await session.exec(select(Charge).where(col(Charge.payment_intent_id).in_(ids))
                                      .order_by(col(Charge.sort_key))))
    by_charge: dict[str, list[ChainTransfer]] = defaultdict(list)
    if charges:
        rows = await session.exec(
            select(ChargeTransfer.charge_id, ChainTransfer)
            .join(ChainTransfer, col(ChainTransfer.id) == col(ChargeTransfer.transfer_id))
            .where(col(ChargeTransfer.charge_id).in_([c.id for c in charges]))
            .order_by(col(ChainTransfer.created_at), col(ChainTransfer.block_number), col(ChainTransfer.log_index),
                      col(ChainTransfer.id)))
        for charge_id, transfer in rows:
            by_charge[charge_id].append(transfer)
    refunds = await _refunds(session, [c.id for c in charges])
    customer_ids = list({i.customer_id for i in intents if i.customer_id})
    customers = {c.id: c for c in await session.exec(select(Customer).where(col(Customer.id).in_(customer_ids)))} \
        if customer_ids else {}
    merchant_ids = list({i.merchant_id for i in intents})
    names = {m.id: m.name for m in await session.exec(select(Merchant).where(col(Merchant.id).in_(merchant_ids)))}
    invoices = {i.payment_intent_id: i for i in await session.exec(
        select(Invoice).where(col(Invoice.payment_intent_id).in_(ids)))}
    out = []
    for intent in intents:
        own = [c for c in charges if c.payment_intent_id == intent.id]
        out.append(Loaded(intent=intent, charges=own, transfers={c.id: by_charge.get(c.id, []) for c in own},
                          customer=customers.get(intent.customer_id or ""),
                          merchant_name=names.get(intent.merchant_id, ""),
                          refunds={c.id: refunds.get(c.id, []) for c in own}, invoice=invoices.get(intent.id)))
    return out


async def _refunds(session: AsyncSession, charge_ids: list[str]
                   ) -> dict[str, list[tuple[Refund, list[RefundTransaction]]]]:
    if not charge_ids:
        return {}
    # A refund of unexpected funds is not a refund of its charge's payment (it is in another asset).
    rows = list(await session.exec(select(Refund).where(col(Refund.charge_id).in_(charge_ids),
                                                        col(Refund.unexpected_funds).is_(False))
                                   .order_by(col(Refund.sort_key))))
    txs: dict[str, list[RefundTransaction]] = defaultdict(list)
    if rows:
        for t in await session.exec(select(RefundTransaction)
                                    .where(col(RefundTransaction.refund_id).in_([r.id for r in rows]))
                                    .order_by(col(RefundTransaction.created_at), col(RefundTransaction.nonce))):
            txs[t.refund_id].append(t)
    out: dict[str, list[tuple[Refund, list[RefundTransaction]]]] = defaultdict(list)
    for r in rows:
        out[r.charge_id].append((r, txs.get(r.id, [])))
    return out


async def load_one(session: AsyncSession, intent: PaymentIntent) -> Loaded:
    return (await load(session, [intent]))[0]
