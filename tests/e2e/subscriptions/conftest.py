"""A whole paygate on a real Anvil chain, on SQLite and PostgreSQL, e-mailing through a real SMTP server (aiosmtpd on
loopback) whose received messages the tests read."""

from __future__ import annotations

import email
import hashlib
import threading
import time
from collections.abc import Iterator
from email.message import Message
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiosmtpd.controller import Controller
from bip_utils import Bip39MnemonicGenerator

from tests.chain import Chain, chain  # noqa: F401  (the session's Anvil)
from tests.harness import TLS, Service, free_port, start, stop


class Inbox:
    """The messages the SMTP server received, parsed."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self._lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self._lock:
            self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"

    def to(self, address: str) -> list[Message]:
        with self._lock:
            return [m for m in self.messages if m["To"] == address]

    def wait_for(self, address: str, count: int = 1, timeout: float = 30) -> list[Message]:
        deadline = time.monotonic() + timeout
        while len(self.to(address)) < count:
            assert time.monotonic() < deadline, f"no e-mail #{count} to {address}; got {len(self.to(address))}"
            time.sleep(0.2)
        return self.to(address)


@pytest.fixture(scope="session")
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


def mnemonic_for(module: str, backend: str) -> str:
    entropy = hashlib.sha256(f"subscriptions/{module}/{backend}".encode()).digest()[:16]
    return str(Bip39MnemonicGenerator().FromEntropy(entropy))


def serve(request: pytest.FixtureRequest, chain: Chain, smtp: tuple[Inbox, int],  # noqa: F811
          tmp_path_factory: pytest.TempPathFactory, extra_env: dict[str, str] | None = None) -> Service:
    """A paygate on `request.param`'s database, the session's Anvil and the test SMTP server, with a wallet of the
    test module's own."""
    return start(request.param, Path(tmp_path_factory.mktemp(f"subs-{request.param}")),
                 networks_file=chain.networks_file,
                 extra_env={"PAYGATE_WALLET_MNEMONIC": mnemonic_for(request.module.__name__, request.param),
                            "PAYGATE_SMTP_URL": f"smtp://127.0.0.1:{smtp[1]}", **(extra_env or {})})


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def paygate(request: pytest.FixtureRequest, chain: Chain,  # noqa: F811
            smtp: tuple[Inbox, int], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = serve(request, chain, smtp, tmp_path_factory)
    yield svc
    stop(svc)


@pytest.fixture
def inbox(smtp: tuple[Inbox, int]) -> Inbox:
    return smtp[0]


@pytest.fixture
def shop(paygate: Service) -> Iterator[httpx.Client]:
    merchant: dict[str, Any] = paygate.create_merchant("Coffee club")
    with httpx.Client(base_url=paygate.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=60,
                      verify=TLS) as client:
        yield client
