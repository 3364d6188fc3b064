"""Imports every table so that `SQLModel.metadata` is complete: only Alembic (`env.py`) and the tests read it, so no
package of `server/` depends on every domain's models."""

from server.aml.models import AmlCheck
from server.cards.models import ProviderAccount, SavedPaymentMethod
from server.chains.models import ChainTransfer, NetworkCursor, WatchedAddress
from server.customers.models import AuthToken, Customer, EphemeralToken, VerificationCode, VerificationCodeFailure
from server.events.models import Event
from server.idempotency.models import IdempotencyKey
from server.invoices.models import Invoice
from server.merchants.models import ApiKey, ApprovalSetting, Merchant
from server.orders.models import Order
from server.payment_intents.models import Charge, ChargeTransfer, PaymentIntent
from server.payment_links.models import PaymentLink, PaymentLinkItem
from server.payrolls.models import Payroll, PayrollItem
from server.products.models import Product, ProductVariant, SellingPlan
from server.rails.evm.models import SignedTransaction, TreasuryNonce
from server.rails.utxo.models import UtxoReservedInput, UtxoSource, UtxoSpend
from server.ratelimit.models import RateLimitBucket
from server.refunds.models import Refund, RefundTransaction
from server.selling_plans.models import SellingPlanGroup, SellingPlanGroupProduct
from server.subscriptions.models import Subscription
from server.treasury.addresses.models import MerchantAddress
from server.treasury.approvals.models import PayoutApprovalAction
from server.treasury.ledger.models import LedgerEntry, SweepDue
from server.treasury.models import TreasuryTransfer
from server.treasury.payouts.models import Payout
from server.treasury.sweeps.models import Sweep, SweepTransaction
from server.wallet.models import PermanentDeposit, WalletAccount, WalletCounter
from server.webhooks.models import Delivery, WebhookEndpoint

__all__ = [
    "AmlCheck",
    "ApiKey",
    "ApprovalSetting",
    "AuthToken",
    "ChainTransfer",
    "Charge",
    "ChargeTransfer",
    "Customer",
    "Delivery",
    "EphemeralToken",
    "Event",
    "IdempotencyKey",
    "Invoice",
    "LedgerEntry",
    "Merchant",
    "MerchantAddress",
    "NetworkCursor",
    "Order",
    "PaymentIntent",
    "PaymentLink",
    "PaymentLinkItem",
    "Payout",
    "PayoutApprovalAction",
    "Payroll",
    "PayrollItem",
    "PermanentDeposit",
    "Product",
    "ProductVariant",
    "ProviderAccount",
    "RateLimitBucket",
    "Refund",
    "RefundTransaction",
    "SavedPaymentMethod",
    "SellingPlan",
    "SellingPlanGroup",
    "SellingPlanGroupProduct",
    "SignedTransaction",
    "Subscription",
    "Sweep",
    "SweepDue",
    "SweepTransaction",
    "TreasuryNonce",
    "TreasuryTransfer",
    "UtxoReservedInput",
    "UtxoSource",
    "UtxoSpend",
    "VerificationCode",
    "VerificationCodeFailure",
    "WalletAccount",
    "WalletCounter",
    "WatchedAddress",
    "WebhookEndpoint",
]
