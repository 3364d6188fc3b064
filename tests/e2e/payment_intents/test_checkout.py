"""The hosted checkout calls: public key + client secret (in the body or in the `request` JSON string)."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from tests.conftest import fails, ok
from tests.e2e.payment_intents.support import TEST_USDT, create, run_expiry_job
from tests.harness import Service

READ = "/payment_intents/link/{id}"
UPDATE = "/payment_intents/link/{id}/update"


@pytest.fixture
def intent(api: httpx.Client) -> dict[str, Any]:
    return create(api, merchant_order_id="co-1")


def creds(merchant: dict[str, Any], intent: dict[str, Any]) -> dict[str, Any]:
    return {"key": merchant["test"]["public_key"], "client_secret": intent["client_secret"]}


def pay_crypto(asset_id: str = TEST_USDT) -> dict[str, Any]:
    return {"payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": asset_id}}}


def test_read_with_public_key_and_client_secret(anonymous: httpx.Client, merchant: dict[str, Any],
                                               intent: dict[str, Any]) -> None:
    got = ok(anonymous.post(READ.format(id=intent["id"]), json=creds(merchant, intent)))
    assert got["id"] == intent["id"] and got["status"] == "RequiresPaymentMethod" and got["charges"] == []
    via_request = ok(anonymous.post(f"/v1/payment_intents/link/{intent['id']}",
                                    json={"request": json.dumps(creds(merchant, intent))}))
    assert via_request["id"] == intent["id"]


def test_update_opens_a_crypto_attempt(anonymous: httpx.Client, api: httpx.Client, merchant: dict[str, Any],
                                       intent: dict[str, Any]) -> None:
    got = ok(anonymous.post(UPDATE.format(id=intent["id"]), json={**creds(merchant, intent), **pay_crypto()}))
    crypto = got["charges"][0]["payment_method_options"]["crypto"]
    assert crypto["deposit_address"].startswith("0x") and len(crypto["deposit_address"]) == 42
    assert crypto["amount"] == "10.5" and crypto["exchange_rate"] == "1" and crypto["expired_at"] > time.time()
    # The spec's `request` string form, on both paths that carry the update call.
    inner = json.dumps({**creds(merchant, intent), **pay_crypto()})
    again = ok(anonymous.post(f"/v1/payment_intents/link/{intent['id']}/update", json={"request": inner}))
    assert again["charges"] == got["charges"]  # the open attempt stands
    ok(anonymous.post(f"/v1/payment_intents/{intent['id']}/link", json={"request": inner}))
    # A server holding the secret key needs no client secret.
    ok(api.post(f"/v1/payment_intents/link/{intent['id']}/update", json=pay_crypto()))
    ok(anonymous.post(f"/v1/payment_intents/link/{intent['id']}",
                      json={"request": json.dumps({"key": merchant["test"]["secret_key"]})}))
    polled = ok(anonymous.post(READ.format(id=intent["id"]), json=creds(merchant, intent)))
    assert polled["payment_details"]["amount_captured"] == {"asset_id": TEST_USDT, "amount": "0"}


def test_wrong_or_missing_credentials_are_401(anonymous: httpx.Client, merchant: dict[str, Any],
                                              intent: dict[str, Any]) -> None:
    path = READ.format(id=intent["id"])
    good = creds(merchant, intent)
    fails(anonymous.post(path, json={"key": good["key"]}), 401, "unauthorized")
    fails(anonymous.post(path, json={"client_secret": good["client_secret"]}), 401, "unauthorized")
    fails(anonymous.post(path, json={**good, "client_secret": intent["id"] + "_secret_" + "x" * 24}), 401,
          "unauthorized")
    fails(anonymous.post(path, json={**good, "key": "pk_test_nope"}), 401, "unauthorized")
    fails(anonymous.post(path, json={"request": json.dumps({"key": good["key"]})}), 401, "unauthorized")
    fails(anonymous.post(UPDATE.format(id=intent["id"]), json={"key": good["key"], **pay_crypto()}), 401,
          "unauthorized")
    # Credentials come first: an unreadable `request` string yields none (401); beside valid ones it is a 400.
    fails(anonymous.post(path, json={"request": "not json"}), 401, "unauthorized")
    fails(anonymous.post(path, json={**good, "request": "not json"}), 400, "parameter_invalid", "request")


def test_another_merchants_intent_is_404(anonymous: httpx.Client, other_merchant: dict[str, Any],
                                         intent: dict[str, Any]) -> None:
    body = {"key": other_merchant["test"]["public_key"], "client_secret": intent["client_secret"]}
    fails(anonymous.post(READ.format(id=intent["id"]), json=body), 404, "payment_intent_not_found")
    fails(anonymous.post(UPDATE.format(id=intent["id"]), json={**body, **pay_crypto()}), 404,
          "payment_intent_not_found")


def test_expired_intent_is_err_status_unexpected(anonymous: httpx.Client, api: httpx.Client,
                                                 merchant: dict[str, Any], service: Service) -> None:
    pi = create(api, expires_in=1)
    time.sleep(1.1 - time.time() % 1 + 1)
    # Past expired_at the checkout refuses at once, even before the expiry job ran.
    fails(anonymous.post(UPDATE.format(id=pi["id"]), json={**creds(merchant, pi), **pay_crypto()}), 409,
          "ErrStatusUnexpected")
    run_expiry_job(service)
    fails(anonymous.post(READ.format(id=pi["id"]), json=creds(merchant, pi)), 409, "ErrStatusUnexpected")
    fails(anonymous.post(UPDATE.format(id=pi["id"]), json={**creds(merchant, pi), **pay_crypto()}), 409,
          "ErrStatusUnexpected")


def test_canceled_intent_is_err_status_unexpected(anonymous: httpx.Client, api: httpx.Client,
                                                  merchant: dict[str, Any], intent: dict[str, Any]) -> None:
    ok(api.post(f"/v1/payment_intents/{intent['id']}/cancel", json={}))
    fails(anonymous.post(READ.format(id=intent["id"]), json=creds(merchant, intent)), 409, "ErrStatusUnexpected")


def test_checkout_asset_rules_apply(anonymous: httpx.Client, merchant: dict[str, Any],
                                   intent: dict[str, Any]) -> None:
    fails(anonymous.post(UPDATE.format(id=intent["id"]), json={**creds(merchant, intent), **pay_crypto("ETH-ETH")}),
          400, "parameter_invalid", "payment_method_options.crypto.asset_id")
    fails(anonymous.post(UPDATE.format(id=intent["id"]),
                         json={**creds(merchant, intent), "payment_method_type": "cards",
                               "payment_method_options": {"fiat": {"currency": "USD"}}}), 400, "parameter_invalid",
          "payment_method_type")
