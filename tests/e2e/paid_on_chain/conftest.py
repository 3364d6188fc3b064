"""A whole paygate (HTTP, gRPC, scheduler with the chain watcher) on a real Anvil chain, on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from bip_utils import Bip39MnemonicGenerator

from tests.chain import Chain, chain  # noqa: F401  (the session's Anvil)
from tests.harness import TLS, Service, start, stop

DENIED_PAYER = 9  # the funded account on the AML deny list


def mnemonic_for(module: str, backend: str) -> str:
    """A wallet of its own per test module and backend: every run shares one chain, and a wallet reused across two
    databases would hand out the same deposit addresses, already paid by the other run."""
    entropy = hashlib.sha256(f"paid_on_chain/{module}/{backend}".encode()).digest()[:16]
    return str(Bip39MnemonicGenerator().FromEntropy(entropy))


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def paygate(request: pytest.FixtureRequest, chain: Chain,  # noqa: F811
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    config = f'aml_deny_list = ["{chain.accounts[DENIED_PAYER].address}"]\n'
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"paid-{request.param}")),
                networks_file=chain.networks_file, config=config,
                extra_env={"PAYGATE_WALLET_MNEMONIC": mnemonic_for(request.module.__name__, request.param)})
    yield svc
    stop(svc)


@pytest.fixture
def shop(paygate: Service) -> Iterator[httpx.Client]:
    merchant: dict[str, Any] = paygate.create_merchant("Chain shop")
    with httpx.Client(base_url=paygate.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=30,
                      verify=TLS) as client:
        yield client
