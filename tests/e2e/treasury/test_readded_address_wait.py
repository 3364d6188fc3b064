"""An address deleted and added again waits 24 hours before it can receive a payout (DESIGN §16), on a paygate whose
clock the test moves forward (tests/clock.py), on both databases."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.refunds.conftest import mnemonic_for
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.test_addresses import create, prove, wallet
from tests.harness import Service, start, stop

DAY_SECONDS = 24 * 3600


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def paygate(request: pytest.FixtureRequest, chain: Chain,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    workdir = Path(tmp_path_factory.mktemp(f"readded-{request.param}"))
    clock = workdir / "clock-offset"
    clock.write_text("0")
    env = {"PAYGATE_WALLET_TEST_MNEMONIC": mnemonic_for("treasury/" + __name__, request.param)}
    svc = start(request.param, workdir, networks_file=chain.networks_file, extra_env=env, clock_file=clock)
    yield svc
    stop(svc)


def later(paygate: Service, seconds: int) -> None:
    assert paygate.clock_file is not None
    paygate.clock_file.write_text(str(seconds))


def preview(shop: Merchant, address: dict[str, Any]) -> Any:
    return shop.api.post("/v1/payouts/preview", json={"source_coin": "ETH-ETH-TEST", "source_amount": "0.001",
                                                      "receive_account_id": address["id"]})


def test_a_readded_address_receives_payouts_once_24_hours_have_passed(shop: Merchant, paygate: Service) -> None:
    owner = wallet()
    first = create(shop, owner.address)
    ok(prove(shop.api, first, owner))
    ok(shop.api.delete(f"/v1/addresses/{first['id']}"))
    again = create(shop, owner.address)
    ok(prove(shop.api, again, owner))
    later(paygate, DAY_SECONDS - 60)
    fails(preview(shop, again), 400, "parameter_invalid", "receive_account_id")
    later(paygate, DAY_SECONDS + 1)
    assert ok(preview(shop, again))["receive_asset_id"] == "ETH-ETH-TEST"
    # More than 24 h after the deletion, adding it once more needs no wait.
    ok(shop.api.delete(f"/v1/addresses/{again['id']}"))
    later(paygate, 2 * DAY_SECONDS + 2)
    third = create(shop, owner.address)
    assert third["usable_from"] == 0
    ok(prove(shop.api, third, owner))
    assert ok(preview(shop, third))["receive_asset_id"] == "ETH-ETH-TEST"
