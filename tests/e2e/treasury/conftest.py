"""A whole paygate on the session's Anvil, on SQLite and PostgreSQL, with a wallet of its own per test module."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.chain import Chain, chain  # noqa: F401  (the session's Anvil)
from tests.e2e.refunds.conftest import Shop, mnemonic_for
from tests.harness import TLS, Service, start, stop

DENIED = "0x" + "de" * 20  # on the AML deny list


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def paygate(request: pytest.FixtureRequest, chain: Chain,  # noqa: F811
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    wallet = mnemonic_for("treasury/" + request.module.__name__, request.param)
    env = {"PAYGATE_WALLET_TEST_MNEMONIC": wallet, **getattr(request.module, "EXTRA_ENV", {})}
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"treasury-{request.param}")),
                networks_file=chain.networks_file, extra_env=env, config=f'aml_deny_list = ["{DENIED}"]\n')
    yield svc
    stop(svc)


@dataclass
class Merchant(Shop):
    """A merchant with its test key (`api`), its live key and its test treasury address."""

    live: httpx.Client
    merchant: dict[str, Any]


@pytest.fixture
def shop(paygate: Service) -> Iterator[Merchant]:
    merchant: dict[str, Any] = paygate.create_merchant("Treasury shop")
    with httpx.Client(base_url=paygate.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=60,
                      verify=TLS) as api, \
            httpx.Client(base_url=paygate.http_url, auth=(merchant["live"]["secret_key"], ""), timeout=60,
                         verify=TLS) as live:
        yield Merchant(api, merchant["test"]["treasury_address"], live, merchant)
