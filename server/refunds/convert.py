"""Rows → the spec's Refund shape (proto). In events a transaction carries only tx_hash, status, amount, asset_id
and network (spec, RefundTransaction)."""

from __future__ import annotations

from decimal import Decimal

from paygate.v1 import refunds_pb2 as pb
from paygate.v1.money_pb2 import AssetAmount

from server import json_fields
from server.catalogue.catalogue import Asset, Catalogue
from server.payment_intents.totals import text
from server.refunds.models import Refund, RefundTransaction
from server.refunds.states import Status, TransactionStatus

STATUS = {Status.PENDING: pb.REFUND_STATUS_PENDING, Status.PROCESSING: pb.REFUND_STATUS_PROCESSING,
          Status.SUCCESS: pb.REFUND_STATUS_SUCCESS, Status.FAILED: pb.REFUND_STATUS_FAILED}
TX_STATUS: dict[str, int] = {
    TransactionStatus.PENDING: pb.REFUND_TRANSACTION_STATUS_PENDING,
    TransactionStatus.CONFIRMED: pb.REFUND_TRANSACTION_STATUS_CONFIRMED,
    TransactionStatus.FAILED: pb.REFUND_TRANSACTION_STATUS_FAILED,
}
REASONS: dict[str, int] = {
    pb.RefundReason.Name(v).removeprefix("REFUND_REASON_").lower(): v
    for v in pb.RefundReason.values() if v != pb.REFUND_REASON_UNSPECIFIED}
REASON_NAMES = {v: k for k, v in REASONS.items()}


def fee_asset(catalogue: Catalogue, network: str) -> Asset | None:
    """The asset a network's fees are paid in: its native coin (the asset without a contract)."""
    net = catalogue.networks.get(network)
    return next((a for a in net.assets if not a.contract_address), None) if net else None


def transaction(catalogue: Catalogue, refund: Refund, t: RefundTransaction, *, brief: bool) -> pb.RefundTransaction:
    out = pb.RefundTransaction(tx_hash=t.tx_hash, status=TX_STATUS.get(t.status, 0),
                               amount=str(int(t.amount_base)), asset_id=t.asset_id, network=t.network)
    if brief:
        return out
    asset, fee = catalogue.by_id.get(t.asset_id), fee_asset(catalogue, t.network)
    out.MergeFrom(pb.RefundTransaction(
        tx_id=t.id, source_address=t.source_address, destination_address=t.destination_address,
        decimals=t.decimals, token=asset.token if asset else t.asset_id.split("-")[0],
        type=pb.REFUND_TRANSACTION_TYPE_REFUND, created_at=t.created_at, charge_id=refund.charge_id,
        refund_id=refund.id, fee_info=text(Decimal(t.fee_wei).scaleb(-(fee.decimals if fee else 18))),
        fee_currency=fee.coin if fee else ""))
    return out


def to_proto(catalogue: Catalogue, refund: Refund, txs: list[RefundTransaction], *,
             brief: bool = False) -> pb.Refund:
    def amount(value: Decimal) -> AssetAmount:
        return AssetAmount(asset_id=refund.asset_id, amount=text(value))

    out = pb.Refund(
        id=refund.id, object="refund", amount=amount(refund.amount), network_fee=amount(refund.network_fee),
        net_amount=amount(refund.amount - refund.network_fee), created=refund.created,
        description=refund.description, transactions=[transaction(catalogue, refund, t, brief=brief) for t in txs],
        failure_reason=refund.failure_reason, charge=refund.charge_id, payment_intent=refund.payment_intent_id,
        refund_address=refund.refund_address, reason=REASONS.get(refund.reason, pb.REFUND_REASON_UNSPECIFIED),
        status=STATUS[Status(refund.status)], exchange_rate=text(refund.exchange_rate),
        unexpected_funds=refund.unexpected_funds, approval_status=refund.approval_status)
    json_fields.fill(out.metadata, refund.metadata_)
    return out
