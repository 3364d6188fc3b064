"""A whole paygate (HTTP, gRPC, scheduler with the chain watcher) on a real `litecoind -regtest`, on SQLite and
PostgreSQL: the UTXO rail through the same services as EVM (issue 34)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from bip_utils import Bip39MnemonicGenerator

from tests.harness import TLS, Service, start, stop
from tests.litecoin import Litecoin, litecoin  # noqa: F401  (the worker's node)

DENIED_WALLET = "denied"


def mnemonic_for(module: str, backend: str) -> str:
    """A wallet of its own per module and backend: the node is shared, and a reused wallet would hand out the same
    deposit addresses, already paid by the other run."""
    entropy = hashlib.sha256(f"paid_on_utxo/{module}/{backend}".encode()).digest()[:16]
    return str(Bip39MnemonicGenerator().FromEntropy(entropy))


@pytest.fixture(scope="session")
def denied_sender(litecoin: Litecoin) -> str:  # noqa: F811
    """An address on the deny list, of the wallet `DENIED_WALLET`, holding coins to pay from."""
    return litecoin.funded_wallet(DENIED_WALLET, Decimal("5"))


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def paygate(request: pytest.FixtureRequest, litecoin: Litecoin, denied_sender: str,  # noqa: F811
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"utxo-{request.param}")),
                networks_file=litecoin.networks_file, config=f'aml_deny_list = ["{denied_sender}"]\n',
                extra_env={"PAYGATE_WALLET_MNEMONIC": mnemonic_for(request.module.__name__, request.param)})
    yield svc
    stop(svc)


@pytest.fixture
def shop(paygate: Service) -> Iterator[httpx.Client]:
    merchant: dict[str, Any] = paygate.create_merchant("Litecoin shop")
    with httpx.Client(base_url=paygate.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=30,
                      verify=TLS) as client:
        yield client
