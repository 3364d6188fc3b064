"""The page's answers and headers: friendly 404/410 pages, a Content-Security-Policy with a fresh nonce, and no
request to any host other than paygate."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import httpx
from playwright.sync_api import Page, expect

from tests.conftest import ok
from tests.e2e.checkout_page.conftest import coffee_link, page_url
from tests.harness import TLS, Service


def test_an_unknown_link_answers_a_friendly_404_page(paygate: Service) -> None:
    r = httpx.get(f"{paygate.http_url}/checkout/pl_doesnotexist000000000000", verify=TLS)
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    assert "This payment page does not exist" in r.text


def test_an_inactive_link_answers_410_gone(paygate: Service, shop: httpx.Client) -> None:
    link = coffee_link(shop)
    ok(shop.post(f"/v1/payment_links/{link['id']}", json={"active": False}))
    r = httpx.get(page_url(paygate, link), verify=TLS)
    assert r.status_code == 410 and "This offer has ended" in r.text


def test_every_page_has_a_csp_whose_nonce_is_fresh_and_is_the_only_script_allowed(
        paygate: Service, shop: httpx.Client) -> None:
    link = coffee_link(shop)
    first, second = httpx.get(page_url(paygate, link), verify=TLS), httpx.get(page_url(paygate, link), verify=TLS)
    nonces = []
    for r in (first, second):
        csp = r.headers["content-security-policy"]
        nonce = re.search(r"script-src 'nonce-([^']+)'", csp).group(1)  # type: ignore[union-attr]
        assert "default-src 'none'" in csp and "'unsafe-inline'" not in csp
        scripts = re.findall(r"<script([^>]*)>", r.text)
        assert all('type="application/json"' in s or f'nonce="{nonce}"' in s for s in scripts), scripts
        assert r.headers["referrer-policy"] == "no-referrer" and r.headers["x-content-type-options"] == "nosniff"
        nonces.append(nonce)
    assert nonces[0] != nonces[1]


def test_a_test_mode_page_may_be_framed_by_any_site(paygate: Service, shop: httpx.Client) -> None:
    test_link = coffee_link(shop, return_url="https://shop.example/thanks")
    assert "frame-ancestors *" in httpx.get(page_url(paygate, test_link), verify=TLS).headers["content-security-policy"]


def test_a_live_page_may_be_framed_only_by_itself_and_the_origin_of_its_return_url(
        paygate: Service, merchant: dict[str, Any]) -> None:
    with httpx.Client(base_url=paygate.http_url, auth=(merchant["live"]["secret_key"], ""), timeout=30,
                      verify=TLS) as live:
        link = coffee_link(live, return_url="https://shop.example/thanks?order=1")
    assert link["url"].endswith(f"/checkout/{link['id']}")
    csp = httpx.get(link["url"], verify=TLS).headers["content-security-policy"]
    assert csp.endswith("frame-ancestors 'self' https://shop.example"), csp


def test_a_pay_page_needs_the_client_secret(paygate: Service, shop: httpx.Client) -> None:
    intent = ok(shop.post("/v1/payment_intents", json={"amount": "5", "currency": "USD"}))
    pay = f"{paygate.http_url}/checkout/pay/{intent['id']}"
    for wrong in (httpx.get(f"{pay}?client_secret={intent['id']}_secret_x", verify=TLS), httpx.get(pay, verify=TLS)):
        assert wrong.status_code == 404 and wrong.headers["content-type"].startswith("text/html")
        assert "Payment not found" in wrong.text and intent["client_secret"] not in wrong.text
        assert "content-security-policy" in wrong.headers
    right = httpx.get(f"{pay}?client_secret={intent['client_secret']}", verify=TLS)
    assert right.status_code == 200 and "frame-ancestors *" in right.headers["content-security-policy"]


def test_an_invoices_payment_url_is_its_pay_page(page: Page, paygate: Service, shop: httpx.Client) -> None:
    link = coffee_link(shop)
    public = ok(httpx.get(f"{paygate.http_url}/checkout/links/{link['id']}", verify=TLS))
    product = ok(shop.get(f"/v1/products/{public['product']['id']}"))
    who = ok(shop.post("/v1/customers", json={"name": "Ivy", "email": "ivy@example.com"}))
    intent = ok(shop.post("/v1/payment_intents", json={
        "payment_link_id": link["id"], "customer": who["id"],
        "primary_variant": {"variant_id": product["variants"][0]["id"], "quantity": 1,
                            "selling_plan_id": product["selling_plans"][0]["id"]}}))
    invoice = ok(shop.get(f"/v1/invoices/{intent['invoice']}"))
    assert invoice["payment_url"] == (f"{paygate.http_url}/checkout/pay/{intent['id']}"
                                      f"?client_secret={intent['client_secret']}")
    page.goto(invoice["payment_url"])
    expect(page.locator("#order-title")).to_have_text("Single-origin beans")
    expect(page.locator("#total")).to_have_text("11.25 USD")  # the first cycle of the monthly plan, 10 % off
    page.select_option("#asset", "USDT-ETH-TEST")
    page.click("#get-quote")
    expect(page.locator("#pay-amount")).to_have_value("11.25 USDT")


def test_an_invoice_style_pay_page_shows_the_amount_and_a_quote(
        page: Page, paygate: Service, shop: httpx.Client) -> None:
    intent = ok(shop.post("/v1/payment_intents", json={"amount": "7.25", "currency": "USD"}))
    page.goto(f"{paygate.http_url}/checkout/pay/{intent['id']}?client_secret={intent['client_secret']}")
    expect(page.locator("#total")).to_have_text("7.25 USD")
    page.select_option("#asset", "USDC-ETH-TEST")
    page.click("#get-quote")
    expect(page.locator("#pay-amount")).to_have_value("7.25 USDC")


def test_the_page_requests_nothing_from_any_host_but_paygate(
        page: Page, paygate: Service, shop: httpx.Client) -> None:
    hosts: set[str] = set()
    page.on("request", lambda r: hosts.add(urlsplit(r.url).netloc) if not r.url.startswith("data:") else None)
    link = coffee_link(shop)
    token = ok(shop.post("/v1/customers/ephemeral_tokens", json={
        "idp_key": "email", "idp_subject": "gus@example.com", "provider": "chat"}))["token"]
    page.goto(f"{page_url(paygate, link)}?ephemeral_token={token}")
    page.click("#continue")
    page.select_option("#asset", "USDT-ETH-TEST")
    page.click("#get-quote")
    expect(page.locator("#qr")).to_have_js_property("complete", True)
    assert hosts == {urlsplit(paygate.http_url).netloc}


