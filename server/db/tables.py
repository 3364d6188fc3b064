"""Imports every table so that `SQLModel.metadata` is complete (Alembic and the tests read it)."""

from server.chains.models import ChainTransfer, NetworkCursor, WatchedAddress
from server.customers.models import AuthToken, Customer, EphemeralToken, VerificationCode
from server.events.models import Event
from server.idempotency.models import IdempotencyKey
from server.merchants.models import ApiKey, Merchant
from server.payment_links.models import PaymentLink, PaymentLinkItem
from server.products.models import Product, ProductVariant, SellingPlan

__all__ = [
    "ApiKey",
    "AuthToken",
    "ChainTransfer",
    "Customer",
    "EphemeralToken",
    "Event",
    "IdempotencyKey",
    "Merchant",
    "NetworkCursor",
    "PaymentLink",
    "PaymentLinkItem",
    "Product",
    "ProductVariant",
    "SellingPlan",
    "VerificationCode",
    "WatchedAddress",
]
