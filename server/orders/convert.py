from __future__ import annotations

from decimal import Decimal

from paygate.v1 import orders_pb2 as pb
from paygate.v1.money_pb2 import Address, AssetAmount

from server.orders.models import Order
from server.validate import money_text


def to_proto(row: Order) -> pb.Order:
    out = pb.Order(
        id=row.id, object="order", order_number=row.id, external_id=row.external_id, status=row.status,
        payment_method=row.payment_method, created_at=row.created_at, updated_at=row.updated_at,
        payment_intent_id=row.payment_intent_id, payment_link_id=row.payment_link_id, livemode=row.livemode,
        total_amount=AssetAmount(asset_id=row.currency, amount=money_text(row.total)))
    product = row.product
    for item in row.items:
        unit = Decimal(item["price"])
        out.items.add(
            product_id=product.get("id", ""), product_name=product.get("name", ""),
            product_description=product.get("description", ""), variant_id=item["variant_id"],
            variant_title=item.get("variant_title", ""), quantity=item["quantity"],
            unit_price=AssetAmount(asset_id=item["currency"], amount=money_text(unit)),
            total=AssetAmount(asset_id=item["currency"], amount=money_text(unit * item["quantity"])),
            selling_plan_id=item.get("selling_plan_id", ""))
    if row.customer is not None:
        buyer = row.customer
        out.customer.CopyFrom(pb.OrderCustomer(id=buyer["id"], name=buyer["name"], email=buyer["email"]))
        if buyer.get("phone"):
            out.customer.phone = buyer["phone"]
    if row.shipping_address:
        out.shipping_address.CopyFrom(Address(**row.shipping_address))
    return out
