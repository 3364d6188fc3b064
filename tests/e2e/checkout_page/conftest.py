"""The hosted checkout page in a real browser: Debian's chromium driven by playwright, against a whole paygate on a
real Anvil chain, with a real SMTP server (aiosmtpd) receiving the one-time codes. SQLite and PostgreSQL.

Screenshots of failed tests are saved under `$PAYGATE_TEST_ARTIFACTS` (default: pytest's temporary folder,
`…/checkout-screenshots/`); the path is printed with the failure.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from bip_utils import Bip39MnemonicGenerator
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect, sync_playwright

from tests.chain import Chain, chain  # noqa: F401  (the session's Anvil)
from tests.conftest import ok
from tests.harness import TLS, Service, start, stop
from tests.localstripe import LocalStripe, start_localstripe, stop_localstripe
from tests.mail import Mailbox, smtp_server

CHROMIUM = "/usr/bin/chromium"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
# How long a step of a test may take: playwright's own default for assertions (5 s) is shorter than the 20 s an
# action gets, and on a loaded machine a page that opens a card charge at the provider outlives it. An upper bound:
# an assertion returns as soon as it holds.
STEP_TIMEOUT_MS = 20_000
CARD_CAPS_RAISED = {"PAYGATE_CARD_ATTEMPTS_PER_IP_PER_HOUR": "1000000",
                    "PAYGATE_CARD_ATTEMPTS_PER_CUSTOMER_PER_HOUR": "1000000",
                    "PAYGATE_CARD_DECLINES_PER_HOUR": "1000000"}
expect.set_options(timeout=STEP_TIMEOUT_MS)


@pytest.fixture(scope="module")
def mailbox() -> Iterator[Mailbox]:
    with smtp_server() as box:
        yield box


def mnemonic_for(module: str, backend: str) -> str:
    entropy = hashlib.sha256(f"checkout_page/{module}/{backend}".encode()).digest()[:16]
    return str(Bip39MnemonicGenerator().FromEntropy(entropy))


@pytest.fixture(scope="module")
def localstripe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStripe]:
    ls = start_localstripe(Path(tmp_path_factory.mktemp("localstripe")))
    yield ls
    stop_localstripe(ls)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def paygate(request: pytest.FixtureRequest, chain: Chain, mailbox: Mailbox,  # noqa: F811
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    extra = {"PAYGATE_WALLET_MNEMONIC": mnemonic_for(request.module.__name__, request.param),
             # checkout_url left empty: the page is served by this paygate at /checkout (DESIGN §9).
             "PAYGATE_CHECKOUT_URL": "", "PAYGATE_SMTP_URL": mailbox.url,
             **getattr(request.module, "EXTRA_ENV", {})}
    if getattr(request.module, "CARDS", False):  # card modules: provider_a is a localstripe of their own
        extra["PAYGATE_PROVIDER_A_API_BASE"] = request.getfixturevalue("localstripe").url
        # Every card the module's browser tries comes from 127.0.0.1 on this one service, within the hour
        # (tests/e2e/cards/test_card_testing.py checks the caps themselves).
        extra = {**CARD_CAPS_RAISED, **extra}
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"page-{request.param}")),
                networks_file=chain.networks_file, extra_env=extra)
    yield svc
    stop(svc)


@pytest.fixture
def merchant(paygate: Service) -> dict[str, Any]:
    # In a thread of its own: playwright's sync API keeps an event loop running in this one.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(paygate.create_merchant, "Sunrise Coffee").result()


@pytest.fixture
def shop(paygate: Service, merchant: dict[str, Any]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=paygate.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=30,
                      verify=TLS) as client:
        yield client


def coffee_link(shop: httpx.Client, **link_fields: Any) -> dict[str, Any]:
    """A product with two sizes and a monthly plan, sold through a link."""
    product = ok(shop.post("/v1/products", json={
        "name": "Single-origin beans", "description": "Washed Ethiopian, roasted this week.", "default_currency": "USD",
        "options": [{"name": "Size", "values": [{"value": "250 g"}, {"value": "1 kg"}]}],
        "variants": [{"option_values": {"Size": "250 g"}, "price": {"amount": "12.50"}},
                     {"option_values": {"Size": "1 kg"}, "price": {"amount": "38.00"}}],
        "selling_plans": [{"name": "Monthly delivery", "billing_cycle": "month", "billing_cycle_interval": 1,
                           "trial_period_days": 0, "pricing_policies": [
                               {"policy_type": "RECURRING", "after_cycle": 0, "discount_percentage": "10"}]}],
    }))
    ids = [v["id"] for v in product["variants"]]
    return ok(shop.post("/v1/payment_links", json={  # type: ignore[no-any-return]
        "product_id": product["id"], "default_variant_id": ids[0], "primary_variant_ids": ids, **link_fields}))


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    # Debian's chromium, never a downloaded build (`playwright install` cannot fetch one here).
    b = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                   args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
    yield b
    b.close()


def artifacts_dir(request: pytest.FixtureRequest) -> Path:
    configured = os.environ.get("PAYGATE_TEST_ARTIFACTS")
    base = Path(configured) if configured else request.config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    path = base / "checkout-screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    setattr(item, f"report_{report.when}", report)


@pytest.fixture
def context(browser: Browser, request: pytest.FixtureRequest) -> Iterator[BrowserContext]:
    viewport = getattr(request, "param", PHONE)
    ctx = browser.new_context(viewport=viewport)
    ctx.set_default_timeout(STEP_TIMEOUT_MS)
    yield ctx
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        folder = artifacts_dir(request)
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid)[-150:]
        for i, p in enumerate(ctx.pages):
            shot = folder / f"{name}-{i}.png"
            try:
                p.screenshot(path=str(shot), full_page=True)
                print(f"screenshot: {shot}")
            except Exception as e:  # a crashed page still lets the other pages be saved
                print(f"screenshot failed: {e}")
    ctx.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return context.new_page()


def page_url(paygate: Service, link: dict[str, Any]) -> str:
    assert link["url"] == f"{paygate.http_url}/checkout/{link['id']}", link["url"]
    return str(link["url"])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A payment watched through the page waits on its 10 s polls: more time than the suite's 120 s default."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.timeout(300))
