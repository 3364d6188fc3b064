"""Rows → the spec's payment intent and charge shapes (proto). Business rules live in totals/states/settle."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from paygate.v1 import customers_pb2, refunds_pb2
from paygate.v1 import payment_intents_pb2 as pb
from paygate.v1.money_pb2 import Address, AssetAmount, Price
from paygate.v1.payment_links_pb2 import PaymentLinkProduct

from server import json_fields
from server.aml import AmlStatus
from server.chains.models import ChainTransfer, TransferStatus
from server.customers.convert import to_proto as customer_proto
from server.errors import Unavailable
from server.payment_intents import methods, totals
from server.payment_intents.aggregate import Loaded
from server.payment_intents.env import Env
from server.payment_intents.models import Charge
from server.payment_intents.states import Status
from server.refunds import convert as refund_convert
from server.refunds.states import Status as RefundStatus
from server.validate import money_text

STATUS = {
    Status.REQUIRES_PAYMENT_METHOD: pb.PAYMENT_INTENT_STATUS_REQUIRES_PAYMENT_METHOD,
    Status.PROCESSING: pb.PAYMENT_INTENT_STATUS_PROCESSING,
    Status.SUCCESS: pb.PAYMENT_INTENT_STATUS_SUCCESS,
    Status.CANCELED: pb.PAYMENT_INTENT_STATUS_CANCELED,
    Status.REFUNDED: pb.PAYMENT_INTENT_STATUS_REFUNDED,
    Status.PARTIAL_PAID: pb.PAYMENT_INTENT_STATUS_PARTIAL_PAID,
}
CHARGE_STATUS: dict[str, int] = {
    totals.ChargeStatus.PENDING: pb.CHARGE_STATUS_PENDING,
    totals.ChargeStatus.SUCCESS: pb.CHARGE_STATUS_SUCCESS,
    totals.ChargeStatus.FAILED: pb.CHARGE_STATUS_FAILED,
    totals.ChargeStatus.EXPIRED: pb.CHARGE_STATUS_EXPIRED,
}
TX_STATUS: dict[str, int] = {
    TransferStatus.SUBMITTED: pb.TRANSACTION_STATUS_SUBMITTED,
    TransferStatus.CONFIRMING: pb.TRANSACTION_STATUS_CONFIRMING,
    TransferStatus.CONFIRMED: pb.TRANSACTION_STATUS_CONFIRMED,
}
AML_STATUS: dict[str, int] = {
    AmlStatus.CHECKING: refunds_pb2.AML_STATUS_UNSPECIFIED,
    AmlStatus.APPROVED: refunds_pb2.AML_STATUS_APPROVED,
    AmlStatus.REJECTED: refunds_pb2.AML_STATUS_REJECTED,
}


def _stage(loaded: Loaded, now: int) -> int:
    intent = loaded.intent
    match intent.status:
        case Status.REQUIRES_PAYMENT_METHOD:
            open_ = any(c.status == totals.ChargeStatus.PENDING and c.quote_expires_at > now for c in loaded.charges)
            return pb.PAYMENT_INTENT_STAGE_AWAITING_PAYMENT if open_ else pb.PAYMENT_INTENT_STAGE_CREATED
        case Status.PROCESSING:
            return pb.PAYMENT_INTENT_STAGE_PROCESSING
        case Status.PARTIAL_PAID:
            return pb.PAYMENT_INTENT_STAGE_PARTIAL_PAID
        case Status.SUCCESS:
            return pb.PAYMENT_INTENT_STAGE_COMPLETED
        case Status.CANCELED:
            return pb.PAYMENT_INTENT_STAGE_EXPIRED if intent.cancellation_reason == "expired" else \
                pb.PAYMENT_INTENT_STAGE_CANCELED
        case Status.REFUNDED:
            return pb.PAYMENT_INTENT_STAGE_REFUNDED
    return pb.PAYMENT_INTENT_STAGE_UNSPECIFIED


def transaction(env: Env, t: ChainTransfer) -> pb.TransactionDetails:
    asset = env.catalogue.by_id.get(t.asset_id)
    return pb.TransactionDetails(
        tx_id=t.id, source_address=t.from_address, destination_address=t.to_address, tx_hash=t.tx_hash,
        amount=str(int(t.amount_base)), token=asset.token if asset else t.asset_id.split("-")[0],
        network=t.network, asset_id=t.asset_id, created_at=t.created_at,
        status=TX_STATUS.get(t.status, pb.TRANSACTION_STATUS_UNSPECIFIED),
        aml_status=AML_STATUS.get(t.aml_status, refunds_pb2.AML_STATUS_UNSPECIFIED), aml_info=t.aml_info,
        decimals=t.decimals, confirmations=t.confirmations,
        confirmations_required=net.confirmations if (net := env.catalogue.networks.get(t.network)) else 0)


def unexpected(charge: Charge, t: ChainTransfer) -> pb.UnexpectedFunds:
    return pb.UnexpectedFunds(
        asset_id=t.asset_id, amount=totals.text(totals.units(t)), tx_hash=t.tx_hash, tx_id=t.id, charge=charge.id,
        network=t.network, source_address=t.from_address, status=TX_STATUS.get(t.status,
                                                                               pb.TRANSACTION_STATUS_UNSPECIFIED),
        aml_status=AML_STATUS.get(t.aml_status, refunds_pb2.AML_STATUS_UNSPECIFIED), created_at=t.created_at)


def charge_proto(env: Env, loaded: Loaded, charge: Charge, now: int) -> pb.Charge:
    intent = loaded.intent
    moves = loaded.transfers_of(charge)
    status = totals.shown_status(charge, totals.charge_totals(moves), intent.status, now)
    refunds = loaded.refunds.get(charge.id, [])
    # What reached the customer: only successful refunds count, as on the intent (settle.refunded).
    refunded = sum((r.amount for r, _ in refunds if r.status == RefundStatus.SUCCESS), Decimal(0))
    out = pb.Charge(
        id=charge.id, object="charge", amount=AssetAmount(asset_id=charge.asset_id, amount=totals.text(charge.amount)),
        transactions=[transaction(env, t) for t in moves if t.status != TransferStatus.REVERTED],
        refunded=charge.amount_captured > 0 and refunded >= charge.amount_captured,
        refunds=[refund_convert.to_proto(env.catalogue, r, txs) for r, txs in refunds], created=charge.created,
        payment_provider=charge.payment_provider, payment_method_type=charge.payment_method_type,
        exchange_rate=totals.text(charge.exchange_rate), status=CHARGE_STATUS[status],
        paid=charge.amount_captured > 0, captured=charge.amount_captured > 0,
        amount_captured=AssetAmount(asset_id=charge.asset_id, amount=totals.text(charge.amount_captured)),
        amount_refunded=AssetAmount(asset_id=charge.asset_id, amount=totals.text(refunded)),
        currency=intent.currency,
        customer=intent.customer_id or "", description=intent.description, livemode=intent.livemode,
        payment_intent=intent.id, receipt_email=intent.receipt_email)
    if charge.frozen_amount > 0:
        json_fields.fill(out.fraud_details, {"aml_status": str(AmlStatus.REJECTED),
                                         "frozen_amount": totals.text(charge.frozen_amount)})
    methods.of(charge.payment_method_type).answer_charge(env, charge, status, out)
    return out


def _details(loaded: Loaded) -> pb.PaymentDetails:
    intent = loaded.intent
    latest = loaded.latest_charge
    asset = intent.paid_asset_id or (latest.asset_id if latest else intent.currency)

    def amount(value: Any) -> AssetAmount:
        return AssetAmount(asset_id=asset, amount=totals.text(value))

    return pb.PaymentDetails(
        amount_captured=amount(intent.amount_captured), amount_refunded=amount(intent.amount_refunded),
        tx_fee=amount(intent.tx_fee), tax_fee=amount(intent.tax_fee), frozen_amount=amount(intent.frozen_amount),
        net_amount=amount(intent.net_amount), network_fee=amount(intent.network_fee))


def _link_details(loaded: Loaded) -> pb.PaymentLinkDetails:
    snap = loaded.intent.link_snapshot or {}
    link = pb.IntentPaymentLink(id=snap.get("payment_link_id", ""), product=PaymentLinkProduct(**snap["product"]),
                                total_price=Price(amount=snap["total"], currency=snap["currency"]))
    for item in snap.get("items", []):
        link.product_items.add(variant_id=item["variant_id"], variant_title=item["variant_title"],
                               quantity=item["quantity"], price=Price(amount=item["price"], currency=item["currency"]),
                               selling_plan_id=item.get("selling_plan_id", ""), is_primary=item["is_primary"])
    return pb.PaymentLinkDetails(merchant_id=loaded.intent.merchant_id, merchant_name=loaded.merchant_name,
                                 payment_link=link)


def client_secret(env: Env, loaded: Loaded) -> str:
    try:
        return env.secrets.of(loaded.intent.id, loaded.intent.livemode)
    except Unavailable:
        # A live intent while secret_key is unset: never block the chain listener over a display field.
        return ""


def to_proto(env: Env, loaded: Loaded, now: int | None = None) -> pb.PaymentIntent:
    now = env.clock.now() if now is None else now
    i = loaded.intent
    paid_asset = i.paid_asset_id or i.currency
    out = pb.PaymentIntent(
        id=i.id, object="payment_intent", amount=AssetAmount(asset_id=i.currency, amount=money_text(i.amount)),
        payment_details=_details(loaded), canceled_at=i.canceled_at, cancellation_reason=i.cancellation_reason,
        client_secret=client_secret(env, loaded), created=i.created, updated=i.updated, currency=i.currency,
        description=i.description, livemode=i.livemode, merchant_order_id=i.merchant_order_id,
        payment_method_type=i.payment_method_type, charges=[charge_proto(env, loaded, c, now) for c in loaded.charges],
        receipt_email=i.receipt_email, status=STATUS[Status(i.status)], payment_intent_status=_stage(loaded, now),
        complete_on_first_payment=i.complete_on_first_payment, permanent_deposit=i.permanent_deposit,
        permanent_deposit_asset_id=i.permanent_deposit_asset_id, expired_at=i.expired_at, return_url=i.return_url,
        amount_overpaid=AssetAmount(asset_id=paid_asset, amount=totals.text(i.amount_overpaid)),
        amount_received_late=AssetAmount(asset_id=paid_asset, amount=totals.text(i.amount_received_late)),
        unexpected_funds=[unexpected(c, t) for c, t in loaded.unexpected_funds()],
    )
    json_fields.fill(out.metadata, i.metadata_)
    if loaded.invoice is not None:
        out.invoice, out.subscription = loaded.invoice.id, loaded.invoice.subscription_id
    if loaded.customer is not None:
        out.customer.CopyFrom(customer_proto(loaded.customer))
    if i.link_snapshot:
        out.payment_link_details.CopyFrom(_link_details(loaded))
    if i.shipping_address:
        out.shipping_address.CopyFrom(Address(**i.shipping_address))
    if (latest := loaded.latest_charge) is not None:
        methods.of(latest.payment_method_type).answer_intent(env, latest, out)
    return out


# What a public caller (public key + client secret: the checkout page, a browser) does not see. The page needs ids,
# status, amounts, the assets and each charge's deposit address, amount and expiry, the product and variants it
# sells, the description (what the customer pays for, shown on the page as on a Stripe checkout) and return_url.
# It does not need what the merchant keeps to itself or what would leak a customer's details to anyone holding the
# client secret (it travels in URLs and browser storage): metadata, merchant_order_id, the customer's contact data,
# shipping address, receipt e-mail, the merchant's fees and AML notes.
_PRIVATE_INTENT_FIELDS = ("metadata", "merchant_order_id", "receipt_email", "shipping_address", "invoice_details",
                          "subscription_details")
_PRIVATE_FEES = ("tx_fee", "tax_fee", "net_amount", "network_fee")
_PRIVATE_CHARGE_FIELDS = ("customer", "receipt_email", "fraud_details")
# What the merchant wrote about a refund, or where and why it was sent: theirs, not the payer's page's. The page
# keeps each refund's amount and status.
_PRIVATE_REFUND_FIELDS = ("description", "metadata", "refund_address", "reason", "failure_reason")


def public_view(intent: pb.PaymentIntent) -> pb.PaymentIntent:
    """The reduced projection of a payment intent answered to public checkout callers."""
    out = pb.PaymentIntent()
    out.CopyFrom(intent)
    for name in _PRIVATE_INTENT_FIELDS:
        out.ClearField(name)
    for name in _PRIVATE_FEES:
        out.payment_details.ClearField(name)
    if out.HasField("customer"):
        out.customer.CopyFrom(customers_pb2.Customer(id=intent.customer.id, object=intent.customer.object))
    for charge in out.charges:
        for name in _PRIVATE_CHARGE_FIELDS:
            charge.ClearField(name)
        for t in charge.transactions:
            t.ClearField("aml_info")
        for refund in charge.refunds:
            for name in _PRIVATE_REFUND_FIELDS:
                refund.ClearField(name)
    for funds in out.unexpected_funds:
        funds.ClearField("aml_status")  # AML details stay off the public view, as for the charges' transactions
    return out
