"""A whole paygate on the session's Anvil, on SQLite and PostgreSQL, with helpers to pay an intent and fund the
merchant's treasury."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from bip_utils import Bip39MnemonicGenerator

from tests.chain import Chain, chain  # noqa: F401  (the session's Anvil)
from tests.harness import TLS, Service, start, stop


def mnemonic_for(module: str, backend: str) -> str:
    """A test-mode wallet of its own per test module and backend: every run shares one chain, and a reused wallet
    would hand out deposit addresses another run already paid, and a treasury whose nonce another run already moved."""
    entropy = hashlib.sha256(f"refunds/{module}/{backend}".encode()).digest()[:16]
    return str(Bip39MnemonicGenerator().FromEntropy(entropy))


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def paygate(request: pytest.FixtureRequest, chain: Chain,  # noqa: F811
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    # Test mode runs on its own seed (never the live one): that is the wallet whose addresses this run uses.
    wallet = mnemonic_for(request.module.__name__, request.param)
    # Sweeps on, as in production: the payments these tests make are swept into the treasury the refunds pay from,
    # and the sweeps' gas top-ups take treasury nonces beside the refunds'. A module that stages nonces by hand
    # (dropped transactions, a treasury emptied on purpose) turns them off in its EXTRA_ENV.
    env = {"PAYGATE_WALLET_TEST_MNEMONIC": wallet, **getattr(request.module, "EXTRA_ENV", {})}
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"refunds-{request.param}")),
                networks_file=chain.networks_file, extra_env=env)
    yield svc
    stop(svc)


@dataclass
class Shop:
    api: httpx.Client
    treasury: str


@pytest.fixture
def shop(paygate: Service) -> Iterator[Shop]:
    merchant: dict[str, Any] = paygate.create_merchant("Refund shop")
    with httpx.Client(base_url=paygate.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=60,
                      verify=TLS) as client:
        yield Shop(client, merchant["test"]["treasury_address"])
