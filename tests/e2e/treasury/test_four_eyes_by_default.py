"""Four eyes by default (DESIGN §16) in live mode, through /v1 on both databases: a live payout, and a live refund to
an address other than the payer's, is refused (`400 approval_required`, nothing created) while the merchant has no
live approver key, unless the operator turned live approvals off explicitly (`paygate merchants set-approval --mode
live --approvals 0`: a warning, and the choice on record); with a live approver key a live payout waits for one
approval. Live mode pays on a mainnet-flagged network ("ETH") served by the session's Anvil, with a live seed of the
module's own."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.rails.evm.networks_file import upsert_network
from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.cards.support import rows
from tests.e2e.refunds.conftest import mnemonic_for
from tests.e2e.refunds.support import created, finished, fund_treasury, paid_intent, refund
from tests.e2e.treasury.conftest import DENIED, Merchant
from tests.e2e.treasury.payout_support import available
from tests.e2e.treasury.test_addresses import create, fresh_address, prove, wallet
from tests.harness import TLS, Service, start, stop
from tests.harness import paygate as cli

LIVE_NETWORK = "ETH"
USDT = "USDT-ETH"
# A hang guard, not a speed check: a test pays an intent on chain and may verify an address (a micro-deposit).
pytestmark = pytest.mark.timeout(300)


def live_network(chain: Chain) -> dict[str, Any]:
    """The built-in "ETH" mainnet entry pointed at the session's Anvil and its test tokens."""
    entry = chain.dev.network_entry()
    return {**entry, "id": LIVE_NETWORK, "display_name": "Ethereum (on the local chain)", "is_mainnet": True}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def paygate(request: pytest.FixtureRequest, chain: Chain,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    workdir = Path(tmp_path_factory.mktemp(f"four-eyes-{request.param}"))
    networks = workdir / "networks.toml"
    shutil.copy(chain.networks_file, networks)
    upsert_network(networks, live_network(chain))
    env = {"PAYGATE_WALLET_TEST_MNEMONIC": mnemonic_for("treasury/" + __name__, request.param),
           "PAYGATE_WALLET_MNEMONIC": mnemonic_for("live/" + __name__, request.param)}
    svc = start(request.param, workdir, networks_file=networks, extra_env=env,
                config=f'aml_deny_list = ["{DENIED}"]\n')
    yield svc
    stop(svc)


@pytest.fixture
def live(shop: Merchant) -> Merchant:
    """The same merchant seen through its live key (every helper reads `api` and `treasury`)."""
    return Merchant(shop.live, shop.merchant["live"]["treasury_address"], shop.live, shop.merchant)


def set_approval(svc: Service, shop: Merchant, *args: str) -> Any:
    done = cli(svc.env, svc.workdir, "merchants", "set-approval", "--merchant", shop.merchant["merchant_id"], *args)
    assert done.returncode == 0, done.stderr
    return done


def live_approver(svc: Service, shop: Merchant) -> httpx.Client:
    done = cli(svc.env, svc.workdir, "merchants", "keys", "create", "--merchant", shop.merchant["merchant_id"],
               "--mode", "live", "--role", "approver", "--json")
    assert done.returncode == 0, done.stderr
    key = json.loads(done.stdout)["secret_key"]
    assert key.startswith("sk_live_")
    return httpx.Client(base_url=str(shop.api.base_url), auth=(key, ""), timeout=60, verify=TLS)


def verified_live_address(live: Merchant, approver: httpx.Client) -> dict[str, Any]:
    """A live payout address proved by its wallet's signature and approved by a live approver (DESIGN §16)."""
    owner = wallet()
    made = create(live, owner.address, network=LIVE_NETWORK)
    assert ok(prove(live.api, made, owner))["status"] == "pending_approval"
    ok(approver.post(f"/v1/approval/{made['id']}/approve", json={}))
    seen: dict[str, Any] = ok(live.api.get(f"/v1/addresses/{made['id']}"))
    assert seen["status"] == "verified", seen
    return seen


def payout(live: Merchant, to: str, amount: str = "1", **fields: Any) -> httpx.Response:
    return live.api.post("/v1/payouts", json={"source_coin": USDT, "source_amount": amount, **fields,
                                              "receive_address": to})


def refused(answer: httpx.Response) -> None:
    body = fails(answer, 400, "approval_required")
    # The message tells the merchant what to do.
    assert "approver key" in body["msg"] and "set-approval" in body["msg"], body


def test_a_live_payout_is_refused_while_the_merchant_has_no_approver_key(chain: Chain, live: Merchant) -> None:
    paid_intent(chain, live, USDT, "4")
    before = available(live, USDT)
    assert Decimal(before) > 0
    refused(payout(live, fresh_address()))
    assert ok(live.api.get("/v1/payouts"))["total"] == 0
    assert available(live, USDT) == before


def test_a_live_refund_to_another_address_is_refused_while_the_merchant_has_no_approver_key(
        chain: Chain, live: Merchant) -> None:
    sale = paid_intent(chain, live, USDT, "4")
    fund_treasury(chain, live, usdt=5_000_000)  # the treasury could pay it: only the rule refuses it
    before = available(live, USDT)
    refused(refund(live, sale["id"], "1", refund_address=fresh_address()))
    assert ok(live.api.get("/v1/refunds", params={"payment_intent": sale["id"]}))["refunds"] == []
    assert available(live, USDT) == before


def test_a_live_refund_to_the_payer_goes_without_an_approver_key(chain: Chain, live: Merchant) -> None:
    sale = paid_intent(chain, live, USDT, "4")
    fund_treasury(chain, live, usdt=5_000_000)
    made = created(live, sale["id"], "1")  # no refund_address: back where the money came from
    assert made["approval_status"] == "not_required"
    assert finished(chain, live, made["id"])["status"] == "Success"


def test_test_mode_approvals_set_to_0_leave_live_payouts_refused(paygate: Service, shop: Merchant,
                                                                 live: Merchant) -> None:
    set_approval(paygate, shop, "--mode", "test", "--approvals", "0")
    refused(payout(live, fresh_address()))


def test_live_approvals_turned_off_explicitly_warn_stay_on_record_and_let_a_payout_go_unapproved(
        chain: Chain, paygate: Service, shop: Merchant, live: Merchant) -> None:
    done = set_approval(paygate, shop, "--mode", "live", "--approvals", "0")
    assert "warning" in done.stderr.lower() and "live" in done.stderr, done.stderr
    record = rows(paygate, "SELECT livemode, approvals_required, actor, created FROM approval_settings "
                           "WHERE merchant_id = :m", m=shop.merchant["merchant_id"])
    assert [(bool(r["livemode"]), r["approvals_required"], r["actor"]) for r in record] == [(True, 0, "cli")]
    assert record[0]["created"] > 0
    paid_intent(chain, live, USDT, "4")
    with live_approver(paygate, shop) as approver:  # a live payout address still needs one (DESIGN §16)
        to = verified_live_address(live, approver)
    made = ok(payout(live, to["address"]))
    assert (made["status"], made["approval_status"]) == ("approved", "not_required"), made


def test_with_a_live_approver_key_a_live_payout_waits_for_one_approval(
        chain: Chain, paygate: Service, shop: Merchant, live: Merchant) -> None:
    with live_approver(paygate, shop) as approver:
        paid_intent(chain, live, USDT, "4")
        to = verified_live_address(live, approver)
        made = ok(payout(live, to["address"]))
        assert (made["status"], made["approval_status"]) == ("pending", "pending"), made
        detail = ok(approver.get("/v1/approval/detail", params={"resource_id": made["id"]}))
        assert detail["approvals_required"] == 1
        decided = ok(approver.post(f"/v1/approval/{made['id']}/approve", json={}))
        assert decided["approval_status"] == "approved"
