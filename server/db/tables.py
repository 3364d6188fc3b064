"""Imports every table so that `SQLModel.metadata` is complete (Alembic and the tests read it)."""

from server.customers.models import AuthToken, Customer, EphemeralToken, VerificationCode
from server.idempotency.models import IdempotencyKey
from server.merchants.models import ApiKey, Merchant
from server.payment_links.models import PaymentLink, PaymentLinkItem
from server.products.models import Product, ProductVariant, SellingPlan

__all__ = [
    "ApiKey",
    "AuthToken",
    "Customer",
    "EphemeralToken",
    "IdempotencyKey",
    "Merchant",
    "PaymentLink",
    "PaymentLinkItem",
    "Product",
    "ProductVariant",
    "SellingPlan",
    "VerificationCode",
]
