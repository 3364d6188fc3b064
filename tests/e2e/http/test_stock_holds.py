"""Stock holds (DESIGN §16, server/products/stock.py): an unpaid checkout holds its units for `checkout_hold_seconds`
after it was made, not until its expiry a day later, so one shopper's unpaid checkout of the whole stock no longer
sells the product out for everyone else (issue 30, finding 4); and one shopper, their customer or else their
client IP, holds at most 10 units of a variant at once (`max_held_units_per_shopper`): the purchase that would hold
more is refused on its quantity (`400 parameter_invalid`, nothing created). Shoppers speak from their own loopback
addresses (127.0.0.2, 127.0.0.3), as the hosted page's calls come from the shopper's browser.

The hold tests run a service of their own whose hold is 120 s and whose clock they move forward (tests/clock.py);
the cap tests the shared service (a hold of 900 s).
Paying after the hold lapsed (the sale is never refused): tests/e2e/cards/test_stock_hold_lapsed.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import fails, ok
from tests.e2e.http.test_payment_link_availability import intents_of
from tests.e2e.http.test_stock import shirts_in_stock
from tests.e2e.http.test_stock_on_checkout_page import page
from tests.harness import TLS, Service, start, stop

HOLD = 120  # seconds: the hold of this file's own service (PAYGATE_CHECKOUT_HOLD_SECONDS), whose clock tests move
ANN = {"idp_key": "email", "idp_subject": "ann@example.com", "provider": "telegram"}
BOB = {"idp_key": "email", "idp_subject": "bob@example.com", "provider": "telegram"}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def short_hold(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    workdir = Path(tmp_path_factory.mktemp(f"short-hold-{request.param}"))
    svc = start(request.param, workdir, extra_env={"PAYGATE_CHECKOUT_HOLD_SECONDS": str(HOLD)},
                clock_file=workdir / "clock-offset")
    yield svc
    stop(svc)


def move_clock(svc: Service, seconds: int) -> None:
    """The service's time, `seconds` ahead of the wall clock from now on (tests/clock.py)."""
    assert svc.clock_file is not None
    svc.clock_file.write_text(str(seconds))


def client(svc: Service, address: str = "127.0.0.1", key: str | None = None) -> httpx.Client:
    """A client of `svc` whose connections come from `address`."""
    return httpx.Client(base_url=svc.http_url, auth=httpx.BasicAuth(key, "") if key else None, timeout=30,
                        transport=httpx.HTTPTransport(local_address=address, verify=TLS))


def checkout(api: httpx.Client, shopper: httpx.Client, link: dict[str, Any], quantity: int,
             who: dict[str, str] | None = None) -> httpx.Response:
    """The hosted page's `Continue` from the shopper's client: `quantity` shirts, signed in with an ephemeral token
    the merchant issued (anonymous, or naming the customer `who`)."""
    token = ok(api.post("/v1/customers/ephemeral_tokens", json=who or {}))["token"]
    return shopper.post("/checkout/sessions", json={
        "payment_link_id": link["id"], "ephemeral_token": token,
        "primary_variant": {"variant_id": link["primary_variants"][0]["variant_id"], "quantity": quantity}})


def status_of(api: httpx.Client, intent_id: str) -> str:
    return str(ok(api.get(f"/v1/payment_intents/{intent_id}"))["status"])


# ---------------------------------------------------------------- the hold lapses (a service whose hold is 120 s)


@pytest.fixture
def shop(short_hold: Service) -> Iterator[httpx.Client]:
    move_clock(short_hold, 0)
    with client(short_hold, key=short_hold.create_merchant()["test"]["secret_key"]) as api:
        yield api
    move_clock(short_hold, 0)


def test_an_unpaid_checkout_of_the_whole_stock_sells_it_out_only_for_the_hold(
        short_hold: Service, shop: httpx.Client) -> None:
    link = shirts_in_stock(shop, 10)
    with client(short_hold, "127.0.0.2") as first, client(short_hold, "127.0.0.3") as second:
        holding = ok(checkout(shop, first, link, 10))
        body = fails(checkout(shop, second, link, 1), 400, "parameter_invalid", "primary_variant.variant_id")
        assert "sold out" in body["msg"]
        move_clock(short_hold, HOLD - 30)
        fails(checkout(shop, second, link, 1), 400, "parameter_invalid", "primary_variant.variant_id")
        assert page(second, link)[0] == [False]
        move_clock(short_hold, HOLD + 2)
        assert page(second, link)[0] == [True]
        ok(checkout(shop, second, link, 1))
    # The first checkout is not canceled: it may still be paid until its expiry (a sale never refused).
    assert status_of(shop, holding["payment_intent_id"]) == "RequiresPaymentMethod"
    assert intents_of(shop) == 2


def test_an_unpaid_checkout_made_by_the_merchants_server_holds_for_the_hold_too(
        short_hold: Service, shop: httpx.Client) -> None:
    link = shirts_in_stock(shop, 1)
    ok(shop.post("/v1/payment_intents", json={"payment_link_id": link["id"]}))
    fails(shop.post("/v1/payment_intents", json={"payment_link_id": link["id"]}), 400, "parameter_invalid",
          "primary_variant.variant_id")
    move_clock(short_hold, HOLD + 2)
    ok(shop.post("/v1/payment_intents", json={"payment_link_id": link["id"]}))


def test_a_lapsed_hold_no_longer_counts_against_its_shopper(short_hold: Service, shop: httpx.Client) -> None:
    link = shirts_in_stock(shop, 30)
    with client(short_hold, "127.0.0.2") as shopper:
        ok(checkout(shop, shopper, link, 10))
        fails(checkout(shop, shopper, link, 1), 400, "parameter_invalid", "primary_variant.quantity")
        move_clock(short_hold, HOLD + 2)
        ok(checkout(shop, shopper, link, 10))


# ---------------------------------------------------------------- at most 10 units of a variant per shopper


@pytest.fixture
def at(service: Service) -> Iterator[dict[str, httpx.Client]]:
    """Shoppers' clients of the shared service by their address."""
    with client(service, "127.0.0.2") as two, client(service, "127.0.0.3") as three:
        yield {"127.0.0.2": two, "127.0.0.3": three}


def test_one_shopper_is_refused_the_eleventh_unit_of_a_variant(api: httpx.Client,
                                                              at: dict[str, httpx.Client]) -> None:
    link = shirts_in_stock(api, 30)
    ok(checkout(api, at["127.0.0.2"], link, 10))
    body = fails(checkout(api, at["127.0.0.2"], link, 1), 400, "parameter_invalid", "primary_variant.quantity")
    assert "at most 10" in body["msg"]
    assert intents_of(api) == 1


def test_one_checkout_of_eleven_units_is_refused(api: httpx.Client, at: dict[str, httpx.Client]) -> None:
    link = shirts_in_stock(api, 30)
    fails(checkout(api, at["127.0.0.2"], link, 11), 400, "parameter_invalid", "primary_variant.quantity")
    assert intents_of(api) == 0
    ok(checkout(api, at["127.0.0.2"], link, 10))


def test_another_shopper_is_not_limited_by_the_first(api: httpx.Client, at: dict[str, httpx.Client]) -> None:
    link = shirts_in_stock(api, 30)
    ok(checkout(api, at["127.0.0.2"], link, 10))
    ok(checkout(api, at["127.0.0.3"], link, 10))
    assert intents_of(api) == 2


def test_one_customer_is_one_shopper_across_addresses(api: httpx.Client, at: dict[str, httpx.Client]) -> None:
    link = shirts_in_stock(api, 30)
    ok(checkout(api, at["127.0.0.2"], link, 10, ANN))
    fails(checkout(api, at["127.0.0.3"], link, 1, ANN), 400, "parameter_invalid", "primary_variant.quantity")
    ok(checkout(api, at["127.0.0.2"], link, 10, BOB))  # another customer at the same address
    assert intents_of(api) == 2


def test_editing_the_order_counts_the_replaced_checkout_no_more(api: httpx.Client,
                                                                at: dict[str, httpx.Client]) -> None:
    link = shirts_in_stock(api, 30)
    first = ok(checkout(api, at["127.0.0.2"], link, 10, ANN))
    ok(at["127.0.0.2"].post("/checkout/sessions", json={
        "payment_link_id": link["id"], "auth_token": first["auth_token"],
        "primary_variant": {"variant_id": link["primary_variants"][0]["variant_id"], "quantity": 10},
        "replaces_payment_intent_id": first["payment_intent_id"], "replaces_client_secret": first["client_secret"]}))


def test_a_purchase_the_merchant_makes_for_a_customer_counts_as_theirs(api: httpx.Client) -> None:
    link = shirts_in_stock(api, 30)
    customer = ok(api.post("/v1/customers", json={"email": "carol@example.com"}))
    shirt = link["primary_variants"][0]["variant_id"]
    for_carol = {"payment_link_id": link["id"], "customer": customer["id"],
                 "primary_variant": {"variant_id": shirt, "quantity": 10}}
    ok(api.post("/v1/payment_intents", json=for_carol))
    fails(api.post("/v1/payment_intents", json={**for_carol, "primary_variant": {"variant_id": shirt}}), 400,
          "parameter_invalid", "primary_variant.quantity")
    assert intents_of(api) == 1


def test_the_merchants_server_is_no_shopper(api: httpx.Client) -> None:
    """Purchases the merchant's server makes with its secret key for no customer are its shoppers' (many of them,
    from one address): no per-shopper cap applies to them, only the stock does."""
    link = shirts_in_stock(api, 30)
    shirt = link["primary_variants"][0]["variant_id"]
    for _ in range(2):
        ok(api.post("/v1/payment_intents", json={"payment_link_id": link["id"],
                                                 "primary_variant": {"variant_id": shirt, "quantity": 12}}))
    assert intents_of(api) == 2
