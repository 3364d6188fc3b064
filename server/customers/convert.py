from __future__ import annotations

from paygate.v1 import customers_pb2

from server import json_fields
from server.customers.models import Customer
from server.validate import money_text


def to_proto(c: Customer) -> customers_pb2.Customer:
    out = customers_pb2.Customer(
        id=c.id, object="customer", name=c.name, email=c.email, description=c.description,
        created=c.created, updated=c.updated, phone=c.phone, uuid=c.uuid, currency=c.currency,
        total_payment=money_text(c.total_payment), total_refund=money_text(c.total_refund),
        # What the customer spent in the end: payments less what came back.
        total_expense=money_text(c.total_payment - c.total_refund),
    )
    json_fields.fill(out.metadata, c.metadata_)
    return out
