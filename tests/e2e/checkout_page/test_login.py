"""Who is paying: the e-mail one-time code (read from a real SMTP server) or `?ephemeral_token=`, which skips it."""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, expect

from tests.conftest import fails, ok
from tests.e2e.checkout_page.conftest import coffee_link, page_url
from tests.harness import TLS, Service
from tests.mail import Mailbox


def test_a_shopper_signs_in_with_the_code_emailed_to_them(
        page: Page, paygate: Service, shop: httpx.Client, mailbox: Mailbox) -> None:
    link = coffee_link(shop)
    page.goto(page_url(paygate, link))
    page.fill("#email", "bea@example.com")
    page.click("#send-code")
    expect(page.locator("#code-form")).to_be_visible()
    page.fill("#code", mailbox.code_for("bea@example.com"))
    page.click("#continue")
    expect(page.locator("#step-pay")).to_be_visible()
    customers = ok(shop.get("/v1/customers", params={"page": 0, "page_size": 10, "email": "bea@example.com"}))
    assert customers["total"] == 1
    intent = ok(shop.get("/v1/payment_intents", params={"page": 0, "page_size": 1}))["payment_intents"][0]
    assert intent["customer"]["id"] == customers["customers"][0]["id"]


def test_a_wrong_code_is_shown_at_the_code_field_and_nothing_is_bought(
        page: Page, paygate: Service, shop: httpx.Client, mailbox: Mailbox) -> None:
    link = coffee_link(shop)
    page.goto(page_url(paygate, link))
    page.fill("#email", "cid@example.com")
    page.click("#send-code")
    right = mailbox.code_for("cid@example.com")
    page.fill("#code", "000000" if right != "000000" else "111111")
    page.click("#continue")
    expect(page.locator("#code-error")).to_contain_text("wrong")
    expect(page.locator("#step-pay")).to_be_hidden()
    assert ok(shop.get("/v1/payment_intents", params={"page": 0, "page_size": 1}))["total"] == 0


def test_an_ephemeral_token_in_the_address_skips_the_code(
        page: Page, paygate: Service, shop: httpx.Client) -> None:
    link = coffee_link(shop)
    token = ok(shop.post("/v1/customers/ephemeral_tokens", json={
        "idp_key": "email", "idp_subject": "dan@example.com", "provider": "chat"}))["token"]
    page.goto(f"{page_url(paygate, link)}?ephemeral_token={token}")
    expect(page.locator("#email-form")).to_be_hidden()
    page.click("#continue")
    expect(page.locator("#step-pay")).to_be_visible()
    intent = ok(shop.get("/v1/payment_intents", params={"page": 0, "page_size": 1}))["payment_intents"][0]
    assert intent["customer"]["email"] == "dan@example.com"


def test_the_quantity_and_selling_plan_chosen_price_the_intent(
        page: Page, paygate: Service, shop: httpx.Client) -> None:
    link = coffee_link(shop)
    token = ok(shop.post("/v1/customers/ephemeral_tokens", json={
        "idp_key": "email", "idp_subject": "eve@example.com", "provider": "chat"}))["token"]
    page.goto(f"{page_url(paygate, link)}?ephemeral_token={token}")
    page.get_by_role("radio", name="1 kg").click()
    page.click("#qty-plus")
    expect(page.locator("#total")).to_have_text("76.00 USD")
    page.get_by_role("radio", name="Monthly delivery").click()
    expect(page.locator("#total")).to_have_text("68.40 USD")  # 10 % off each cycle
    expect(page.locator("#plan-note")).to_contain_text("Renews every month")
    page.get_by_role("radio", name="One-time purchase").click()
    page.click("#continue")
    expect(page.locator("#step-pay")).to_be_visible()
    intent = ok(shop.get("/v1/payment_intents", params={"page": 0, "page_size": 1}))["payment_intents"][0]
    assert intent["amount"] == {"asset_id": "USD", "amount": "76.00"}


def test_codes_are_sent_through_the_checkout_call_and_limited_per_address(
        paygate: Service, shop: httpx.Client, mailbox: Mailbox) -> None:
    link = coffee_link(shop)
    with httpx.Client(base_url=paygate.http_url, verify=TLS) as anonymous:
        sent = ok(anonymous.post("/checkout/verification_codes",
                                 json={"payment_link_id": link["id"], "email": "fay@example.com"}))
        assert sent["retry_after"] == 30
        assert mailbox.code_for("fay@example.com")
        again = anonymous.post("/checkout/verification_codes",
                               json={"payment_link_id": link["id"], "email": "fay@example.com"})
        fails(again, 429, "rate_limited", "email")
        assert again.headers["Retry-After"]
