"""The hosted page paying an intent in LTC on a real `litecoind -regtest`, in a real browser: its QR code and its
"open in wallet" link carry the BIP-21 URI the Litecoin rail made (`litecoin:<address>?amount=<LTC>`, DESIGN §18).
SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from urllib.parse import unquote

import httpx
import pytest
from bip_utils import Bip39MnemonicGenerator
from playwright.sync_api import Page, expect

from tests.conftest import ok
from tests.e2e.checkout_page.conftest import artifacts_dir
from tests.harness import TLS, Service, start, stop
from tests.litecoin import Litecoin, litecoin  # noqa: F401  (the worker's node)

LTC = "LTC-LTC-TEST"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def paygate(request: pytest.FixtureRequest, litecoin: Litecoin,  # noqa: F811
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """A paygate whose catalogue is the litecoind's LTC-TEST, serving the page itself at /checkout."""
    entropy = hashlib.sha256(f"checkout_page/ltc/{request.param}".encode()).digest()[:16]
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"page-ltc-{request.param}")),
                networks_file=litecoin.networks_file,
                extra_env={"PAYGATE_WALLET_MNEMONIC": str(Bip39MnemonicGenerator().FromEntropy(entropy)),
                           "PAYGATE_CHECKOUT_URL": ""})
    yield svc
    stop(svc)


def open_ltc_quote(page: Page, paygate: Service, shop: httpx.Client) -> dict[str, str]:
    intent = ok(shop.post("/v1/payment_intents", json={"amount": "10.50", "currency": "USD"}))
    page.goto(f"{paygate.http_url}/checkout/pay/{intent['id']}?client_secret={intent['client_secret']}")
    page.select_option("#asset", LTC)
    page.click("#get-quote")
    expect(page.locator("#quote")).to_be_visible()
    return {"amount": page.input_value("#pay-amount").split()[0], "address": page.text_content("#pay-address") or "",
            "uri": page.get_attribute("#qr", "data-uri") or "", "src": page.get_attribute("#qr", "src") or ""}


def test_the_qr_code_of_an_ltc_quote_carries_a_bip21_uri_of_the_amount_to_the_address(
        page: Page, paygate: Service, shop: httpx.Client, request: pytest.FixtureRequest) -> None:
    quote = open_ltc_quote(page, paygate, shop)
    assert Decimal(quote["amount"]) == Decimal("0.13125")  # 10.50 USD at the default 80 USD per LTC
    assert quote["address"].startswith("rltc1q")
    assert quote["uri"] == f"litecoin:{quote['address']}?amount=0.13125"
    assert unquote(quote["src"].split("data=", 1)[1]) == quote["uri"]
    # The page shows that picture: the endpoint drew it and the browser decoded it.
    expect(page.locator("#qr")).to_have_js_property("complete", True)
    assert page.eval_on_selector("#qr", "img => img.naturalWidth") > 0
    page.screenshot(path=str(artifacts_dir(request) / f"checkout-ltc-quote-{paygate.kind}.png"), full_page=True)


def test_the_open_in_wallet_link_opens_the_same_bip21_uri(page: Page, paygate: Service, shop: httpx.Client) -> None:
    quote = open_ltc_quote(page, paygate, shop)
    expect(page.locator("#open-wallet")).to_be_visible()
    assert page.get_attribute("#open-wallet", "href") == quote["uri"]


def test_the_qr_endpoint_draws_a_bip21_uri(paygate: Service) -> None:
    svg = httpx.get(f"{paygate.http_url}/checkout/qr.svg", params={
        "data": "litecoin:rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg?amount=0.13125"}, verify=TLS)
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert svg.text.startswith("<svg") and "<path" in svg.text


@pytest.mark.parametrize("data", ["https://evil.test/pay", "javascript:alert(1)", "dogecoin:D8vFz4p1L37jdg9xpp",
                                  "Litecoin:rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg", "litecoin:rltc1q…", ""])
def test_the_qr_endpoint_refuses_what_no_rail_makes(paygate: Service, data: str) -> None:
    answer = httpx.get(f"{paygate.http_url}/checkout/qr.svg", params={"data": data}, verify=TLS)
    assert answer.status_code == 400 and answer.headers["content-type"].startswith("text/plain")
