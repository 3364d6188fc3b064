"""Proof of control of a payout address (DESIGN §16), through /v1 on both databases: the merchant's wallet signs
paygate's message naming the merchant, the address and a single-use nonce (EIP-191, `personal_sign`); a signature
of anything else is refused and costs the nonce; a live address also needs an approver; an address deleted and
added again cannot receive a payout for 24 hours (test_readded_address_wait.py moves the clock past them)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.rails.evm.networks_file import upsert_network
from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.refunds.conftest import mnemonic_for
from tests.e2e.treasury.conftest import DENIED, Merchant
from tests.e2e.treasury.test_addresses import create, prove, sign, wallet
from tests.harness import TLS, Service, start, stop
from tests.harness import paygate as cli

LIVE_NETWORK = "ANVIL"  # the session's Anvil again, as a production network: live keys may add addresses on it
DAY_SECONDS = 24 * 3600  # DESIGN §16: a deleted and re-added address waits 24 h


def live_networks(chain: Chain, workdir: Path) -> Path:
    """The chain's networks file plus the same chain as a production network (an id without -TEST)."""
    path = workdir / "networks.toml"
    shutil.copy(chain.networks_file, path)
    entry = chain.dev.network_entry()
    upsert_network(path, {**entry, "id": LIVE_NETWORK, "display_name": "Anvil as production",
                          "assets": [a for a in entry["assets"] if a["coin"] == entry["native_coin"]]})
    return path


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def paygate(request: pytest.FixtureRequest, chain: Chain,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    workdir = Path(tmp_path_factory.mktemp(f"address-proof-{request.param}"))
    env = {"PAYGATE_WALLET_TEST_MNEMONIC": mnemonic_for("treasury/" + __name__, request.param)}
    svc = start(request.param, workdir, networks_file=live_networks(chain, workdir), extra_env=env,
                config=f'aml_deny_list = ["{DENIED}"]\n')
    yield svc
    stop(svc)


def message(shop: Merchant, made: dict[str, Any], mode: str = "test") -> str:
    """The text DESIGN §16 and the README promise the merchant signs, built here from its parts."""
    return ("paygate payout address verification\n"
            f"Merchant: {shop.merchant['merchant_id']}\n"
            f"Mode: {mode}\n"
            f"Network: {made['network']}\n"
            f"Address: {made['address']}\n"
            f"Nonce: {made['verification']['nonce']}")


def seen(shop: Merchant, made: dict[str, Any], api: httpx.Client | None = None) -> dict[str, Any]:
    return ok((api or shop.api).get(f"/v1/addresses/{made['id']}"))  # type: ignore[no-any-return]


def refused(answer: httpx.Response) -> None:
    fails(answer, 400, "verification_signature_invalid", "signature")


def approver_in(svc: Service, shop: Merchant, mode: str) -> httpx.Client:
    done = cli(svc.env, svc.workdir, "merchants", "keys", "create", "--merchant", shop.merchant["merchant_id"],
               "--mode", mode, "--role", "approver", "--json")
    assert done.returncode == 0, done.stderr
    return httpx.Client(base_url=str(shop.api.base_url), auth=(json.loads(done.stdout)["secret_key"], ""),
                        timeout=60, verify=TLS)


def test_the_message_to_sign_names_paygate_the_merchant_the_address_and_a_nonce(shop: Merchant) -> None:
    made = create(shop, wallet().address)
    nonce = made["verification"]["nonce"]
    assert len(nonce) >= 16 and made["verification"]["method"] == ""
    assert made["verification"]["message"] == message(shop, made)
    assert create(shop, wallet().address)["verification"]["nonce"] != nonce


def test_a_signature_of_the_message_verifies_the_address(shop: Merchant) -> None:
    owner = wallet()
    made = create(shop, owner.address)
    done = ok(prove(shop.api, made, owner))
    assert done["status"] == "verified" and done["approval_status"] == "not_required"
    assert done["verification"]["status"] == "verified" and done["verification"]["method"] == "signature"
    assert done["verification"]["verified_at"] > 0 and done["usable_from"] == 0
    assert done["verification"]["nonce"] == "" and done["verification"]["message"] == ""  # used: nothing to sign


def test_a_signature_by_another_key_is_refused_and_the_nonce_renewed(shop: Merchant) -> None:
    made = create(shop, wallet().address)
    refused(prove(shop.api, made, wallet()))
    after = seen(shop, made)
    assert after["status"] == "pending_verification" and after["verification"]["status"] != "verified"
    assert after["verification"]["nonce"] != made["verification"]["nonce"]
    assert after["verification"]["message"] == message(shop, after)


def test_a_signature_of_an_old_nonce_is_refused(shop: Merchant) -> None:
    owner = wallet()
    made = create(shop, owner.address)
    old = sign(owner, made["verification"]["message"])
    refused(prove(shop.api, made, wallet()))  # a failed try: the nonce signed above is spent
    refused(shop.api.post(f"/v1/addresses/{made['id']}/verify", json={"signature": old}))
    assert seen(shop, made)["status"] == "pending_verification"
    assert ok(prove(shop.api, seen(shop, made), owner))["status"] == "verified"  # the new nonce, signed: verified


def test_a_signature_used_once_does_not_verify_the_address_added_again(shop: Merchant) -> None:
    owner = wallet()
    made = create(shop, owner.address)
    used = sign(owner, made["verification"]["message"])
    ok(shop.api.post(f"/v1/addresses/{made['id']}/verify", json={"signature": used}))
    ok(shop.api.delete(f"/v1/addresses/{made['id']}"))
    again = create(shop, owner.address)
    refused(shop.api.post(f"/v1/addresses/{again['id']}/verify", json={"signature": used}))
    assert seen(shop, again)["status"] == "pending_verification"


def test_a_signature_for_another_merchants_address_is_refused(shop: Merchant, paygate: Service) -> None:
    owner = wallet()
    mine = create(shop, owner.address)
    other = paygate.create_merchant("Another shop")
    with httpx.Client(base_url=paygate.http_url, auth=(other["test"]["secret_key"], ""), timeout=60,
                      verify=TLS) as api:
        theirs = ok(api.post("/v1/addresses", json={"network": "ETH-TEST", "address": owner.address}))
        # The wallet signed for this merchant's address: the other merchant's same address is not proven by it.
        refused(api.post(f"/v1/addresses/{theirs['id']}/verify",
                         json={"signature": sign(owner, mine["verification"]["message"])}))
        assert ok(api.get(f"/v1/addresses/{theirs['id']}"))["status"] == "pending_verification"
        fails(api.post(f"/v1/addresses/{mine['id']}/verify", json={"signature": sign(owner, mine["verification"][
            "message"])}), 404, "address_not_found")
    assert seen(shop, mine)["status"] == "pending_verification"


def test_a_live_address_proven_by_signature_waits_for_an_approver(shop: Merchant, paygate: Service) -> None:
    owner = wallet()
    made = ok(shop.live.post("/v1/addresses", json={"network": LIVE_NETWORK, "address": owner.address}))
    assert made["approval_status"] == "pending" and made["verification"]["message"] == message(shop, made, "live")
    proven = ok(prove(shop.live, made, owner))
    assert proven["status"] == "pending_approval" and proven["verification"]["method"] == "signature"
    fails(shop.live.post("/v1/payouts/preview", json={"source_coin": f"ETH-{LIVE_NETWORK}", "source_amount": "0.001",
                                                      "receive_account_id": made["id"]}),
          400, "parameter_invalid", "receive_account_id")
    with approver_in(paygate, shop, "test") as test_approver:
        fails(test_approver.post(f"/v1/approval/{made['id']}/approve", json={}), 403, "forbidden")
    fails(shop.live.post(f"/v1/approval/{made['id']}/approve", json={}), 403, "approver_key_required")
    with approver_in(paygate, shop, "live") as four_eyes:
        decided = ok(four_eyes.post(f"/v1/approval/{made['id']}/approve", json={"comment": "treasury wallet"}))
    assert (decided["resource_type"], decided["approvals_required"], decided["approvals_given"]) == \
        ("payout_address", 1, 1)
    assert [(a["action"], a["comment"]) for a in decided["actions"]] == [("approve", "treasury wallet")]
    assert seen(shop, made, shop.live)["status"] == "verified"


def test_a_live_address_approved_before_its_proof_is_verified_by_the_proof(shop: Merchant, paygate: Service) -> None:
    owner = wallet()
    made = ok(shop.live.post("/v1/addresses", json={"network": LIVE_NETWORK, "address": owner.address}))
    with approver_in(paygate, shop, "live") as four_eyes:
        ok(four_eyes.post(f"/v1/approval/{made['id']}/approve", json={}))
    assert seen(shop, made, shop.live)["status"] == "pending_verification"  # approved, not yet proven
    done = ok(prove(shop.live, made, owner))
    assert done["status"] == "verified" and done["approval_status"] == "approved"


def test_a_test_address_proven_by_signature_needs_no_approver(shop: Merchant, paygate: Service) -> None:
    owner = wallet()
    made = create(shop, owner.address)
    assert made["approval_status"] == "not_required"
    with approver_in(paygate, shop, "test") as four_eyes:
        fails(four_eyes.post(f"/v1/approval/{made['id']}/approve", json={}), 409, "address_not_pending_approval")
    assert ok(prove(shop.api, made, owner))["status"] == "verified"


def test_an_address_deleted_and_added_again_cannot_receive_a_payout_for_24_hours(shop: Merchant) -> None:
    owner = wallet()
    first = create(shop, owner.address)
    ok(prove(shop.api, first, owner))
    ok(shop.api.delete(f"/v1/addresses/{first['id']}"))
    again = create(shop, owner.address)
    assert again["usable_from"] == again["created_at"] + DAY_SECONDS
    done = ok(prove(shop.api, again, owner))
    assert done["status"] == "verified" and done["usable_from"] == again["created_at"] + DAY_SECONDS
    body = {"source_coin": "ETH-ETH-TEST", "source_amount": "0.001", "receive_account_id": again["id"]}
    for path in ("/v1/payouts/preview", "/v1/payouts"):
        answer = fails(shop.api.post(path, json=body), 400, "parameter_invalid", "receive_account_id")
        assert again["id"] in answer["msg"] and str(again["created_at"] + DAY_SECONDS) in answer["msg"], answer
    by_address = {"source_coin": "ETH-ETH-TEST", "source_amount": "0.001", "receive_address": owner.address}
    answer = fails(shop.api.post("/v1/payouts/preview", json=by_address), 400, "parameter_invalid", "receive_address")
    assert again["id"] in answer["msg"]
    assert ok(shop.api.get("/v1/payouts"))["total"] == 0


def test_an_address_on_the_deny_list_cannot_be_proven_by_signature(shop: Merchant) -> None:
    made = create(shop, DENIED)
    fails(shop.api.post(f"/v1/addresses/{made['id']}/verify", json={"signature": "0x" + "11" * 65}), 409,
          "address_verification_failed")
