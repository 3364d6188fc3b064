from __future__ import annotations

from paygate.v1 import payrolls_pb2 as pb

from server.catalogue.catalogue import Catalogue
from server.payrolls.models import Payroll, PayrollItem
from server.payrolls.states import Status, approval_status_of, status_of
from server.treasury.models import TreasuryTransfer
from server.treasury.payouts.models import Payout as PayoutRow
from server.treasury.payouts.models import PayoutStatus
from server.treasury.sweeps.service import native_of
from server.validate import money_text

_ENDED = (PayoutStatus.CANCELED,)


def to_proto(row: Payroll, made: list[PayoutRow]) -> pb.Payroll:
    status = status_of(bool(row.confirmed_at), [p.status for p in made])
    canceled = [p.updated for p in made if p.status in _ENDED]
    return pb.Payroll(
        id=row.id, created_at=row.created_at, updated_at=max([row.updated_at, *(p.updated for p in made)]),
        canceled_at=max(canceled) if status == Status.CANCELED and canceled else 0, merchant_id=row.merchant_id,
        external_id=row.external_id, approval_status=approval_status_of(row, made), status=status,
        total_item_num=row.item_count, total_amount=money_text(row.total_amount), total_service_fee="0",
        currency=row.asset_id, livemode=row.livemode)


def item_to_proto(catalogue: Catalogue, payroll: Payroll, item: PayrollItem, payout: PayoutRow | None,
                  txs: list[TreasuryTransfer]) -> pb.PayrollItem:
    asset = catalogue.by_id.get(payroll.asset_id)
    native = native_of(catalogue, payroll.network)
    out = pb.PayrollItem(
        id=item.id, created_at=item.created_at, updated_at=payout.updated if payout else item.created_at,
        payroll_id=payroll.id, external_id=item.external_id, name=item.name, email=item.email, phone=item.phone,
        amount=money_text(item.amount), service_fee="0", coin=item.coin, network=payroll.network,
        asset_id=payroll.asset_id, address=item.address, address_verified=True,
        status=payout.status if payout else Status.CREATED, payment_method=item.payment_method,
        tx_id=payout.tx_hash if payout else "", fail_reason=payout.failure_reason if payout else "",
        payout_id=item.payout_id or "")
    for t in txs:
        out.transactions.add(
            tx_id=t.id, source_address=t.source_address, destination_address=t.destination_address,
            tx_hash=t.tx_hash, amount=format(t.amount_base, "f"), decimals=asset.decimals if asset else 0,
            asset_id=payroll.asset_id, token=asset.coin if asset else "", network=payroll.network, type="payout",
            created_at=t.created_at, status=t.status, fee_currency=native.id if native else "")
    return out
