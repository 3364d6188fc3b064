"""Payrolls on a whole paygate on the session's Anvil, on SQLite and PostgreSQL: the treasury's fixtures (a wallet of
this module's own), with another merchant for the scoping tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.treasury.conftest import chain, paygate, shop  # noqa: F401  (the session's Anvil)
from tests.harness import TLS, Service


@pytest.fixture
def other_shop(paygate: Service) -> Iterator[httpx.Client]:  # noqa: F811
    merchant: dict[str, Any] = paygate.create_merchant("Another shop")
    with httpx.Client(base_url=paygate.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=30,
                      verify=TLS) as client:
        yield client
