"""The generated route table has exactly the documented paths, with the documented methods and RPCs.

The list below is written out by hand from the spec's endpoint tables, DESIGN.md §7, §8, §11 and §12 and the
checkout, events and webhook annotations, so that a path dropped from (or added to) a .proto fails here.
"""

from __future__ import annotations

from collections import Counter

import paygate.v1 as api
import pytest
from starlette.routing import Match, Route

from gateway_http.app import create_app
from gateway_http.routes import bindings

# (HTTP method, path template) → "Service/Method" of the RPC it calls.
DOCUMENTED: dict[tuple[str, str], str] = {
    # Assets (spec "Assets", hosted checkout calls)
    ("GET", "/v1/assets"): "AssetService/ListAssets",
    ("GET", "/v1/assets/all"): "AssetService/ListAllAssets",
    ("GET", "/v1/assets/fees"): "AssetService/ListAssetFees",
    ("GET", "/assets/all"): "AssetService/ListAllAssets",
    ("GET", "/merchants/{merchant_id}/assets"): "AssetService/ListMerchantAssets",
    # Customers
    ("POST", "/v1/customers"): "CustomerService/CreateCustomer",
    ("GET", "/v1/customers"): "CustomerService/ListCustomers",
    ("GET", "/v1/customers/{id}"): "CustomerService/GetCustomer",
    ("POST", "/v1/customers/{id}"): "CustomerService/UpdateCustomer",
    ("DELETE", "/v1/customers/{id}"): "CustomerService/DeleteCustomer",
    ("POST", "/v1/customers/ephemeral_tokens"): "CustomerService/CreateEphemeralToken",
    ("POST", "/v1/customers/identities/resolve"): "CustomerService/ResolveIdentity",
    ("GET", "/v1/customers/payment_methods"): "CustomerService/ListPaymentMethods",
    ("GET", "/customers/payment_methods/public/list"): "CustomerService/ListPaymentMethods",
    # Payment intents (spec, DESIGN §12 extra paths, hosted checkout calls)
    ("POST", "/v1/payment_intents"): "PaymentIntentService/CreatePaymentIntent",
    ("POST", "/v1/payment_intents/link"): "PaymentIntentService/CreatePaymentIntent",
    ("GET", "/v1/payment_intents"): "PaymentIntentService/ListPaymentIntents",
    ("GET", "/v1/payment_intents/{id}"): "PaymentIntentService/GetPaymentIntent",
    ("POST", "/v1/payment_intents/{id}"): "PaymentIntentService/UpdatePaymentIntent",
    ("POST", "/v1/payment_intents/{id}/cancel"): "PaymentIntentService/CancelPaymentIntent",
    ("POST", "/v1/payment_intents/link/{id}"): "PaymentIntentService/GetCheckoutPaymentIntent",
    ("POST", "/payment_intents/link/{id}"): "PaymentIntentService/GetCheckoutPaymentIntent",
    ("POST", "/v1/payment_intents/link/{id}/update"): "PaymentIntentService/UpdateCheckoutPaymentIntent",
    ("POST", "/payment_intents/link/{id}/update"): "PaymentIntentService/UpdateCheckoutPaymentIntent",
    ("POST", "/v1/payment_intents/{id}/link"): "PaymentIntentService/UpdateCheckoutPaymentIntent",
    # Payment links
    ("POST", "/v1/payment_links"): "PaymentLinkService/CreatePaymentLink",
    ("GET", "/v1/payment_links"): "PaymentLinkService/ListPaymentLinks",
    ("GET", "/v1/payment_links/{id}"): "PaymentLinkService/GetPaymentLink",
    ("POST", "/v1/payment_links/{id}"): "PaymentLinkService/UpdatePaymentLink",
    ("DELETE", "/v1/payment_links/{id}"): "PaymentLinkService/DeletePaymentLink",
    # Products (spec, DESIGN §12: POST and DELETE /v1/products/{id})
    ("POST", "/v1/products"): "ProductService/CreateProduct",
    ("GET", "/v1/products"): "ProductService/ListProducts",
    ("GET", "/v1/products/{id}"): "ProductService/GetProduct",
    ("PATCH", "/v1/products/{id}"): "ProductService/UpdateProduct",
    ("POST", "/v1/products/{id}"): "ProductService/UpdateProduct",
    ("DELETE", "/v1/products/{id}"): "ProductService/DeleteProduct",
    # Selling-plan groups and plans (DESIGN §17, the public SDK's 11 functions)
    ("POST", "/v1/selling_plan_groups"): "SellingPlanService/CreateSellingPlanGroup",
    ("GET", "/v1/selling_plan_groups"): "SellingPlanService/ListSellingPlanGroups",
    ("GET", "/v1/selling_plan_groups/{id}"): "SellingPlanService/GetSellingPlanGroup",
    ("POST", "/v1/selling_plan_groups/{id}"): "SellingPlanService/UpdateSellingPlanGroup",
    ("DELETE", "/v1/selling_plan_groups/{id}"): "SellingPlanService/DeleteSellingPlanGroup",
    ("POST", "/v1/selling_plans"): "SellingPlanService/CreateSellingPlan",
    ("GET", "/v1/selling_plans"): "SellingPlanService/ListSellingPlans",
    ("POST", "/v1/selling_plans/calculate_price"): "SellingPlanService/CalculateSellingPlanPrice",
    ("GET", "/v1/selling_plans/{id}"): "SellingPlanService/GetSellingPlan",
    ("POST", "/v1/selling_plans/{id}"): "SellingPlanService/UpdateSellingPlan",
    ("DELETE", "/v1/selling_plans/{id}"): "SellingPlanService/DeleteSellingPlan",
    # Subscriptions (spec, DESIGN §8 test clock, §12 preview and revoke-cancel)
    ("GET", "/v1/subscriptions"): "SubscriptionService/ListSubscriptions",
    ("GET", "/v1/subscriptions/{id}"): "SubscriptionService/GetSubscription",
    ("POST", "/v1/subscriptions/{id}"): "SubscriptionService/ChangeSubscriptionPlan",
    ("POST", "/v1/subscriptions/{id}/cancel"): "SubscriptionService/CancelSubscription",
    ("POST", "/v1/subscriptions/{id}/revoke-cancel"): "SubscriptionService/RevokeSubscriptionCancel",
    ("POST", "/v1/subscriptions/{id}/pause"): "SubscriptionService/PauseSubscription",
    ("POST", "/v1/subscriptions/{id}/resume"): "SubscriptionService/ResumeSubscription",
    ("POST", "/v1/subscriptions/{id}/preview"): "SubscriptionService/PreviewSubscriptionChange",
    ("POST", "/v1/subscriptions/{id}/test_clock/advance"): "SubscriptionService/AdvanceSubscriptionTestClock",
    # DESIGN §8: invoices, at the paths the public SDKs use.
    ("GET", "/v1/invoices"): "InvoiceService/ListInvoices",
    ("GET", "/v1/invoices/{id}"): "InvoiceService/GetInvoice",
    ("GET", "/v1/invoices/{id}/payment_intent"): "InvoiceService/GetInvoicePaymentIntent",
    ("POST", "/v1/invoices/{id}/send"): "InvoiceService/SendInvoice",
    ("POST", "/v1/invoices/{id}/void"): "InvoiceService/VoidInvoice",
    ("POST", "/v1/payment_intents/invoice"): "InvoiceService/CreateInvoicePaymentIntent",
    # Refunds
    ("POST", "/v1/refunds"): "RefundService/CreateRefund",
    ("GET", "/v1/refunds"): "RefundService/ListRefunds",
    ("GET", "/v1/refunds/{id}"): "RefundService/GetRefund",
    # Treasury (DESIGN §15)
    ("GET", "/v1/stats/balance"): "TreasuryService/GetBalance",
    ("GET", "/v1/sweeps"): "TreasuryService/ListSweeps",
    ("POST", "/v1/addresses"): "AddressService/CreateAddress",
    ("GET", "/v1/addresses"): "AddressService/ListAddresses",
    ("GET", "/v1/addresses/{id}"): "AddressService/GetAddress",
    ("POST", "/v1/addresses/{id}"): "AddressService/UpdateAddress",
    ("DELETE", "/v1/addresses/{id}"): "AddressService/DeleteAddress",
    ("POST", "/v1/addresses/{id}/verify"): "AddressService/VerifyAddress",
    ("POST", "/v1/payouts/preview"): "PayoutService/PreviewPayout",
    ("POST", "/v1/payouts"): "PayoutService/CreatePayout",
    ("GET", "/v1/payouts"): "PayoutService/ListPayouts",
    ("GET", "/v1/payouts/{id}"): "PayoutService/GetPayout",
    ("POST", "/v1/payouts/{id}/cancel"): "PayoutService/CancelPayout",
    ("GET", "/v1/approval/detail"): "PayoutService/GetApprovalDetail",
    ("GET", "/v1/approval/pending"): "PayoutService/ListPendingApprovals",
    ("POST", "/v1/approval/{id}/approve"): "PayoutService/ApprovePayout",
    ("POST", "/v1/approval/{id}/reject"): "PayoutService/RejectPayout",
    # Orders (DESIGN §17)
    ("GET", "/v1/orders"): "OrderService/ListOrders",
    ("GET", "/v1/orders/{id}"): "OrderService/GetOrder",
    # Payrolls (DESIGN §17)
    ("POST", "/v1/payrolls/direct"): "PayrollService/CreateDirectPayroll",
    ("POST", "/v1/payrolls/{id}/confirm"): "PayrollService/ConfirmPayroll",
    ("GET", "/v1/payrolls/{id}"): "PayrollService/GetPayroll",
    ("GET", "/v1/payrolls"): "PayrollService/ListPayrolls",
    ("GET", "/v1/payrolls/items/list"): "PayrollService/ListPayrollItems",
    # Events (DESIGN §7)
    ("GET", "/v1/events"): "EventService/ListEvents",
    ("GET", "/v1/events/{id}"): "EventService/GetEvent",
    ("POST", "/v1/events/{id}/resend"): "EventService/ResendEvent",
    ("GET", "/v1/events/{id}/deliveries"): "EventService/ListEventDeliveries",
    # Webhook endpoints (DESIGN §7, §11)
    ("POST", "/v1/webhook_endpoints"): "WebhookEndpointService/CreateWebhookEndpoint",
    ("GET", "/v1/webhook_endpoints"): "WebhookEndpointService/ListWebhookEndpoints",
    ("GET", "/v1/webhook_endpoints/{id}"): "WebhookEndpointService/GetWebhookEndpoint",
    ("POST", "/v1/webhook_endpoints/{id}"): "WebhookEndpointService/UpdateWebhookEndpoint",
    ("DELETE", "/v1/webhook_endpoints/{id}"): "WebhookEndpointService/DeleteWebhookEndpoint",
    ("POST", "/v1/webhook_endpoints/{id}/rotate_secret"): "WebhookEndpointService/RotateWebhookEndpointSecret",
    # Merchant (DESIGN §11)
    ("GET", "/v1/merchants/me"): "MerchantService/GetCurrentMerchant",
    # Hosted checkout page support (DESIGN §9)
    ("GET", "/checkout/links/{payment_link_id}"): "CheckoutService/GetCheckoutLink",
    ("POST", "/checkout/verification_codes"): "CheckoutService/SendVerificationCode",
    ("POST", "/checkout/sessions"): "CheckoutService/StartCheckout",
    ("GET", "/checkout/sessions/{payment_intent_id}"): "CheckoutService/GetCheckoutSession",
}
DOCUMENTED_PATHS = frozenset(path for _, path in DOCUMENTED)
# Routed by hand: health, the document, and card providers' webhooks (the signature covers the raw body, DESIGN §9).
NOT_GENERATED = {"/healthz", "/openapi.json", "/webhooks/{provider}/{merchant_id}"}


def expected_methods() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for verb, path in DOCUMENTED:
        out.setdefault(path, set()).add(verb)
    return out


@pytest.fixture(scope="module")
def routes() -> list[Route]:
    app = create_app("127.0.0.1:1")
    # The hosted page's own HTML routes (gateway_http/checkout_page) are not API bindings.
    return [r for r in app.routes if isinstance(r, Route) and r.path not in NOT_GENERATED
            and not r.name.startswith("checkout_page.")]


def test_health_and_openapi_routes_exist():
    paths = {r.path for r in create_app("127.0.0.1:1").routes if isinstance(r, Route)}
    assert paths >= NOT_GENERATED


def test_route_paths_are_exactly_the_documented_paths(routes):
    paths = {r.name for r in routes}  # the template; r.path carries the `:identifier` convertor of each parameter
    assert paths - DOCUMENTED_PATHS == set(), "undocumented routes"
    assert DOCUMENTED_PATHS - paths == set(), "documented paths without a route"


def test_each_path_has_exactly_one_route(routes):
    duplicated = [path for path, n in Counter(r.name for r in routes).items() if n > 1]
    assert duplicated == []


@pytest.mark.parametrize("path", sorted(DOCUMENTED_PATHS))
def test_route_methods_are_the_documented_methods(routes, path):
    route = next(r for r in routes if r.name == path)
    assert set(route.methods or ()) - {"HEAD"} == expected_methods()[path]


def test_every_binding_calls_the_documented_rpc():
    bound = {(b.verb, b.template): b.rpc.removeprefix("/paygate.v1.") for b in bindings(api.services())}
    assert bound == DOCUMENTED


def test_checkout_paths_are_additional_bindings_not_primary_rules():
    primary = {(b.verb, b.template) for b in bindings(api.services()) if b.index == 0}
    for path in ("/assets/all", "/payment_intents/link/{id}", "/payment_intents/link/{id}/update",
                 "/customers/payment_methods/public/list", "/v1/payment_intents/link",
                 "/v1/payment_intents/{id}/link", "/v1/products/{id}"):
        verb = "GET" if path in ("/assets/all", "/customers/payment_methods/public/list") else "POST"
        assert (verb, path) not in primary, path


@pytest.mark.parametrize(("method", "path", "template"), [
    ("POST", "/v1/customers/ephemeral_tokens", "/v1/customers/ephemeral_tokens"),
    ("GET", "/v1/customers/payment_methods", "/v1/customers/payment_methods"),
    ("GET", "/v1/customers/cus_123", "/v1/customers/{id}"),
    ("POST", "/v1/payment_intents/link", "/v1/payment_intents/link"),
    ("POST", "/v1/payment_intents/pi_123", "/v1/payment_intents/{id}"),
    ("POST", "/v1/payment_intents/link/pi_123", "/v1/payment_intents/link/{id}"),
    ("POST", "/v1/payment_intents/pi_123/link", "/v1/payment_intents/{id}/link"),
    ("GET", "/v1/assets/all", "/v1/assets/all"),
    ("GET", "/v1/assets/fees", "/v1/assets/fees"),
    ("GET", "/v1/merchants/me", "/v1/merchants/me"),
])
def test_literal_segment_wins_over_a_parameter(routes, method, path, template):
    scope = {"type": "http", "method": method, "path": path, "root_path": ""}
    matched = next(r for r in routes if r.matches(scope)[0] == Match.FULL)
    assert matched.name == template
