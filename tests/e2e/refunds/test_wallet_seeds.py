"""Test mode never derives keys from the live seed: its treasury (which signs refunds on test networks) and its deposit
addresses come from a seed of their own, so nothing learnt in test mode reveals a live key."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.rails.evm.derivation import EvmKeys
from tests.conftest import ok
from tests.e2e.paid_on_chain.test_paid_on_chain import open_intent
from tests.harness import TLS, Service, paygate, start, stop

# A BIP-39 test vector standing for the operator's live seed.
LIVE = "legal winner thank year wave sausage worth useful legal winner thank yellow"
ACCOUNTS = range(0, 8)
INDEXES = range(0, 8)


def _derived(mnemonic: str) -> set[str]:
    keys = EvmKeys()
    return ({keys.deposit_address(mnemonic, a, i) for a in ACCOUNTS for i in INDEXES}
            | {keys.treasury_address(mnemonic, a) for a in ACCOUNTS})


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def live_seeded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    # Only the live mnemonic is configured: test mode must fall back to the generated development seed in var/.
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"seeds-{request.param}")),
                extra_env={"PAYGATE_WALLET_MNEMONIC": LIVE, "PAYGATE_WALLET_TEST_MNEMONIC": ""})
    yield svc
    stop(svc)


def _merchant(svc: Service) -> dict[str, Any]:
    # Made by the CLI in the server's directory, as an operator would: the same var/ as the server's.
    made = paygate(svc.env, svc.workdir, "merchants", "create", "--name", "Seeds", "--json")
    assert made.returncode == 0, made.stderr
    return json.loads(made.stdout)  # type: ignore[no-any-return]


def test_test_mode_addresses_come_from_a_seed_other_than_the_live_one(live_seeded: Service) -> None:
    merchant = _merchant(live_seeded)
    with httpx.Client(base_url=live_seeded.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=30,
                      verify=TLS) as api:
        treasury = ok(api.get("/v1/merchants/me"))["test"]["treasury_address"].lower()
        _, quote = open_intent(api, "USDT-ETH-TEST")
    deposit = quote["deposit_address"].lower()
    live = _derived(LIVE)
    assert merchant["live"]["treasury_address"].lower() in live
    assert treasury not in live and deposit not in live
    dev = (live_seeded.workdir / "var" / "wallet.mnemonic").read_text().strip()
    assert dev != LIVE
    assert {treasury, deposit} <= _derived(dev)
