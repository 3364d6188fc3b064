"""The crypto step fits a phone (390x844) and a desktop (1280x800) with nothing cut off or scrolling sideways.

With PAYGATE_DOCS_SCREENSHOTS=1 the screenshots are written to docs/ (the README shows them); otherwise to the
test artifacts folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.conftest import ok
from tests.e2e.checkout_page.conftest import DESKTOP, PHONE, artifacts_dir, coffee_link, page_url
from tests.harness import Service

DOCS = Path(__file__).parents[3] / "docs"


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_crypto_step_fits_the_screen_without_sideways_scrolling(
        browser: Browser, viewport: dict[str, int], paygate: Service, shop: httpx.Client,
        request: pytest.FixtureRequest) -> None:
    link = coffee_link(shop)
    token = ok(shop.post("/v1/customers/ephemeral_tokens", json={
        "idp_key": "email", "idp_subject": "lea@example.com", "provider": "site"}))["token"]
    context = browser.new_context(viewport=viewport, device_scale_factor=1)
    try:
        page = context.new_page()
        page.goto(f"{page_url(paygate, link)}?ephemeral_token={token}")
        page.click("#continue")
        page.select_option("#asset", "USDT-ETH-TEST")
        page.click("#get-quote")
        expect(page.locator("#qr")).to_have_js_property("complete", True)
        expect(page.locator("#countdown")).to_contain_text("This price holds for")
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        for box in ("#pay-amount", "#pay-address", "#qr", "button[data-copy='pay-address']"):
            bounds = page.locator(box).bounding_box()
            assert bounds is not None and bounds["x"] >= 0 and bounds["x"] + bounds["width"] <= viewport["width"], box
        folder = DOCS if os.environ.get("PAYGATE_DOCS_SCREENSHOTS") == "1" else artifacts_dir(request)
        folder.mkdir(exist_ok=True)
        page.screenshot(path=str(folder / f"checkout-crypto-{viewport['width']}x{viewport['height']}.png"),
                        full_page=viewport == PHONE)
    finally:
        context.close()
