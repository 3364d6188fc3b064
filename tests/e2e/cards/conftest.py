"""Card tests: a real localstripe subprocess as provider_a, and paygate pointed at it, on SQLite and PostgreSQL.

`service` and `merchant` are overridden here: the service knows provider_a's address, and every merchant has
provider_a test keys (localstripe accepts any `sk_test_…`) and a webhook secret.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.boot.cli import set_card_provider
from server.config import load_settings
from tests.e2e.checkout_page.conftest import CARD_CAPS_RAISED
from tests.harness import Service, start, stop
from tests.localstripe import LocalStripe, start_localstripe, stop_localstripe


@pytest.fixture(scope="session")
def localstripe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStripe]:
    ls = start_localstripe(Path(tmp_path_factory.mktemp("localstripe")))
    yield ls
    stop_localstripe(ls)


# Package scope: the service stops once this worker's run leaves the card tests (an idle service's scheduler still
# costs CPU), and a worker that comes back to them later starts a fresh one.
@pytest.fixture(scope="package", params=["sqlite", "postgresql"])
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
            localstripe: LocalStripe) -> Iterator[Service]:
    # The card tests' shoppers all pay from 127.0.0.1 on this one service: the caps on card attempts per client IP,
    # customer and declines are raised (test_card_testing.py has a service of its own with the defaults).
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"paygate-cards-{request.param}")),
                extra_env={"PAYGATE_PROVIDER_A_API_BASE": localstripe.url, **CARD_CAPS_RAISED})
    yield svc
    stop(svc)


def card_keys(service: Service, merchant_id: str) -> dict[str, str]:
    keys = {"secret_key": f"sk_test_{secrets.token_hex(12)}", "publishable_key": f"pk_test_{secrets.token_hex(12)}",
            "webhook_secret": f"whsec_{secrets.token_hex(16)}"}
    settings = load_settings({k: v for k, v in service.env.items() if k.startswith("PAYGATE_")})
    asyncio.run(set_card_provider(settings, merchant_id, False, keys["secret_key"], keys["publishable_key"],
                                  keys["webhook_secret"]))
    return keys


@pytest.fixture
def merchant(service: Service) -> dict[str, Any]:
    """A fresh merchant with provider_a test keys (under `provider_a`)."""
    m = service.create_merchant()
    m["provider_a"] = card_keys(service, m["merchant_id"])
    return m


@pytest.fixture
def other_merchant(service: Service) -> dict[str, Any]:
    m = service.create_merchant("Another merchant")
    m["provider_a"] = card_keys(service, m["merchant_id"])
    return m
