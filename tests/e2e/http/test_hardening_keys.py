"""Only values shaped like a key are looked up as keys (DESIGN.md §14); a key revoked with
`paygate merchants keys revoke` stops at once, and one rolled with `paygate merchants keys roll` keeps working for its
grace period (24 h by default) beside its successor, then stops."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from typing import Any

import grpc
import httpx
import pytest
import sqlalchemy as sa
from paygate.v1 import customers_pb2 as pb
from paygate.v1 import customers_pb2_grpc

from server.boot.cli import main
from server.db import Database
from tests.conftest import fails, http_client, ok
from tests.e2e.grpc.support import fails as grpc_fails
from tests.harness import Service
from tests.harness import paygate as cli


def _sql(service: Service, statement: str, **params: Any) -> list[Any]:
    async def run() -> list[Any]:
        db = Database(service.database_url)
        try:
            async with db.transaction() as session:
                result = await session.execute(sa.text(statement), params)
                return list(result.scalars()) if result.returns_rows else []
        finally:
            await db.close()
    return asyncio.run(run())


def _stored_secret_digest(service: Service, merchant: dict[str, Any]) -> str:
    rows = _sql(service, "SELECT lookup FROM api_keys WHERE merchant_id = :m AND kind = 'secret' AND livemode = false",
                m=merchant["merchant_id"])
    assert len(rows) == 1 and len(rows[0]) == 64
    return str(rows[0])


@contextmanager
def _settings_of(service: Service) -> Iterator[None]:
    """The service's PAYGATE_ environment (and no other PAYGATE_ variable) while the block runs."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update({k: v for k, v in saved.items() if not k.startswith("PAYGATE_")})
    os.environ.update({k: v for k, v in service.env.items() if k.startswith("PAYGATE_")})
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _keys(service: Service, *args: str) -> subprocess.CompletedProcess[str]:
    """`paygate merchants keys …` with the service's settings, run through the CLI's `main` in this process: a new
    Python process per call took 20 s of wall time on this loaded 2-core machine. The test of the listing runs the
    installed command itself."""
    out, err = io.StringIO(), io.StringIO()
    with _settings_of(service), redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(["merchants", "keys", *args])
        except SystemExit as e:  # argparse's refusal of a bad option value
            status = int(e.code or 0)
    return subprocess.CompletedProcess(list(args), status, out.getvalue(), err.getvalue())


def _listed(service: Service, merchant: dict[str, Any]) -> list[dict[str, Any]]:
    done = _keys(service, "list", "--merchant", merchant["merchant_id"], "--json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert listed["merchant_id"] == merchant["merchant_id"]
    return listed["keys"]  # type: ignore[no-any-return]


def _key_of(service: Service, merchant: dict[str, Any], key: str) -> dict[str, Any]:
    """The listed key whose hint starts `key` (secret keys are listed by hint only)."""
    found = [k for k in _listed(service, merchant) if key.startswith(k["hint"])]
    assert len(found) == 1, found
    return found[0]


def _revoke(service: Service, merchant: dict[str, Any], key: str) -> dict[str, Any]:
    done = _keys(service, "revoke", "--merchant", merchant["merchant_id"],
                 "--key", _key_of(service, merchant, key)["id"], "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _roll(service: Service, merchant: dict[str, Any], key: str, *grace: str) -> dict[str, Any]:
    done = _keys(service, "roll", "--merchant", merchant["merchant_id"],
                 "--key", _key_of(service, merchant, key)["id"], *grace, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _authorized(service: Service, key: str) -> bool:
    with http_client(service, key) as client:
        response = client.get("/v1/customers")
    assert response.status_code in (200, 401), response.text
    return response.status_code == 200


def _wait_past(deadline: int) -> None:
    """Until the wall clock (the shared service's) is past `deadline`, a Unix time in whole seconds."""
    time.sleep(max(0.0, deadline - time.time()) + 0.2)


def test_stored_digest_of_a_secret_key_is_401_over_http(service, merchant):
    with http_client(service, _stored_secret_digest(service, merchant)) as client:
        fails(client.get("/v1/customers"), 401, "unauthorized")


def test_stored_digest_of_a_secret_key_is_401_over_grpc(service, merchant, channel):
    stub = customers_pb2_grpc.CustomerServiceStub(channel)
    auth = [("authorization", f"Bearer {_stored_secret_digest(service, merchant)}")]
    grpc_fails(lambda: stub.ListCustomers(pb.ListCustomersRequest(), metadata=auth),
               grpc.StatusCode.UNAUTHENTICATED, "unauthorized")


def test_stored_digest_as_a_checkout_key_is_401(service, merchant, anonymous):
    digest = _stored_secret_digest(service, merchant)
    fails(anonymous.post("/v1/payment_intents/link/pi_x", json={"key": digest, "client_secret": "x"}), 401,
          "unauthorized")


def test_a_key_with_a_wrong_length_is_401(service, merchant):
    with http_client(service, merchant["test"]["secret_key"] + "0") as client:
        fails(client.get("/v1/customers"), 401, "unauthorized")


def test_a_revoked_key_stops_at_once(service, merchant, api):
    ok(api.get("/v1/customers"))  # the key has just been used: a cache would still hold it
    _revoke(service, merchant, merchant["test"]["secret_key"])
    fails(api.get("/v1/customers"), 401, "unauthorized")


def test_a_revoked_key_stops_at_once_over_grpc(service, merchant, channel, grpc_auth):
    stub = customers_pb2_grpc.CustomerServiceStub(channel)
    stub.ListCustomers(pb.ListCustomersRequest(), metadata=grpc_auth)
    _revoke(service, merchant, merchant["test"]["secret_key"])
    grpc_fails(lambda: stub.ListCustomers(pb.ListCustomersRequest(), metadata=grpc_auth),
               grpc.StatusCode.UNAUTHENTICATED, "unauthorized")


def test_revoking_one_key_leaves_the_merchants_other_keys_working(service, merchant, live_api):
    _revoke(service, merchant, merchant["test"]["secret_key"])
    ok(live_api.get("/v1/customers"))


def test_the_public_key_still_works_for_checkout(anonymous: httpx.Client, merchant):
    response = anonymous.post("/v1/payment_intents/link/pi_000000000000000000000000",
                              json={"key": merchant["test"]["public_key"], "client_secret": "x"})
    fails(response, 404, "payment_intent_not_found")


def test_a_revoked_public_key_is_refused_for_checkout(service, merchant, anonymous):
    _revoke(service, merchant, merchant["test"]["public_key"])
    response = anonymous.post("/v1/payment_intents/link/pi_000000000000000000000000",
                              json={"key": merchant["test"]["public_key"], "client_secret": "x"})
    fails(response, 401, "unauthorized")


def test_a_rolled_key_gets_a_new_key_of_its_kind_and_mode_shown_once_and_stored_hashed(service, merchant):
    rolled = _roll(service, merchant, merchant["live"]["secret_key"])
    new = rolled["secret_key"]
    assert new.startswith("sk_live_") and len(new) == len(merchant["live"]["secret_key"]), rolled
    assert (rolled["livemode"], rolled["kind"], rolled["role"]) == (True, "secret", ""), rolled
    assert _authorized(service, new)
    assert _sql(service, "SELECT count(*) FROM api_keys WHERE lookup = :k", k=new) == [0]
    assert new not in json.dumps(_listed(service, merchant))


def test_a_rolled_key_keeps_working_for_24_hours_by_default(service, merchant):
    before = int(time.time())
    rolled = _roll(service, merchant, merchant["test"]["secret_key"])
    assert before + 86_400 <= rolled["rolled_key_expires_at"] <= int(time.time()) + 86_400, rolled
    assert _authorized(service, merchant["test"]["secret_key"])
    assert _authorized(service, rolled["secret_key"])


def test_a_rolled_key_works_within_its_grace_and_is_refused_after_it(service, merchant, channel, grpc_auth):
    # Long enough for the two calls below on a loaded machine, short enough to wait out.
    rolled = _roll(service, merchant, merchant["test"]["secret_key"], "--grace-seconds", "10")
    assert _authorized(service, merchant["test"]["secret_key"])  # within the grace
    stub = customers_pb2_grpc.CustomerServiceStub(channel)
    stub.ListCustomers(pb.ListCustomersRequest(), metadata=grpc_auth)
    _wait_past(rolled["rolled_key_expires_at"])
    assert not _authorized(service, merchant["test"]["secret_key"])
    grpc_fails(lambda: stub.ListCustomers(pb.ListCustomersRequest(), metadata=grpc_auth),
               grpc.StatusCode.UNAUTHENTICATED, "unauthorized")
    assert _authorized(service, rolled["secret_key"])


def test_a_key_rolled_with_no_grace_stops_at_once(service, merchant):
    rolled = _roll(service, merchant, merchant["test"]["secret_key"], "--grace-seconds", "0")
    assert not _authorized(service, merchant["test"]["secret_key"])
    assert _authorized(service, rolled["secret_key"])


def test_a_rolled_public_key_gives_a_new_public_key_the_checkout_accepts(service, merchant, anonymous):
    rolled = _roll(service, merchant, merchant["test"]["public_key"], "--grace-seconds", "0")
    assert rolled["public_key"].startswith("pk_test_") and rolled["kind"] == "public", rolled
    for key, code in ((rolled["public_key"], 404), (merchant["test"]["public_key"], 401)):
        response = anonymous.post("/v1/payment_intents/link/pi_000000000000000000000000",
                                  json={"key": key, "client_secret": "x"})
        fails(response, code, "payment_intent_not_found" if code == 404 else "unauthorized")


def test_a_rolled_approver_key_is_an_approver_key(service, merchant):
    made = _keys(service, "create", "--merchant", merchant["merchant_id"], "--mode", "test", "--role", "approver",
                 "--json")
    assert made.returncode == 0, made.stderr
    rolled = _roll(service, merchant, json.loads(made.stdout)["secret_key"])
    assert rolled["role"] == "approver", rolled
    with http_client(service, rolled["secret_key"]) as client:
        fails(client.get("/v1/customers"), 403, "approver_key_restricted")


def test_listing_keys_shows_each_keys_expiry_and_revocation(service, merchant):
    rolled = _roll(service, merchant, merchant["test"]["secret_key"], "--grace-seconds", "3600")
    revoked = _revoke(service, merchant, merchant["live"]["public_key"])
    listed = {k["id"]: k for k in _listed(service, merchant)}
    assert len(listed) == 5, listed  # 2 per mode, and the rolled key's successor
    old = listed[rolled["rolled_key_id"]]
    assert (old["status"], old["expires_at"], old["revoked_at"]) == ("expiring", rolled["rolled_key_expires_at"],
                                                                     None), old
    assert listed[revoked["id"]]["status"] == "revoked" and listed[revoked["id"]]["revoked_at"] == revoked["revoked_at"]
    new = listed[rolled["id"]]
    assert (new["status"], new["expires_at"], new["revoked_at"], new["hint"]) == (
        "active", None, None, rolled["secret_key"][:12]), new
    assert {(k["mode"], k["kind"]) for k in listed.values()} == {("test", "secret"), ("test", "public"),
                                                                  ("live", "secret"), ("live", "public")}
    done = cli(service.env, service.workdir, "merchants", "keys", "list", "--merchant", merchant["merchant_id"])
    assert done.returncode == 0 and rolled["rolled_key_id"] in done.stdout and "revoked" in done.stdout, done


def test_a_key_past_its_grace_is_listed_expired(service, merchant):
    rolled = _roll(service, merchant, merchant["test"]["secret_key"], "--grace-seconds", "0")
    assert {k["id"]: k["status"] for k in _listed(service, merchant)}[rolled["rolled_key_id"]] == "expired"


@pytest.mark.parametrize("action", ["revoke", "roll"])
def test_another_merchants_key_is_refused_and_left_alone(service, merchant, other_merchant, action):
    theirs = _key_of(service, other_merchant, other_merchant["test"]["secret_key"])
    done = _keys(service, action, "--merchant", merchant["merchant_id"], "--key", theirs["id"])
    assert done.returncode == 2 and done.stderr.startswith("paygate: --key:"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert _key_of(service, other_merchant, other_merchant["test"]["secret_key"]) == theirs
    assert len(_listed(service, merchant)) == 4
    assert _authorized(service, other_merchant["test"]["secret_key"])


@pytest.mark.parametrize("action", ["revoke", "roll"])
def test_an_unknown_key_is_refused(service, merchant, action):
    done = _keys(service, action, "--merchant", merchant["merchant_id"], "--key", "key_000000000000000000000000")
    assert done.returncode == 2 and done.stderr.startswith("paygate: --key:"), done.stderr
    assert len(_listed(service, merchant)) == 4


@pytest.mark.parametrize("action", ["revoke", "roll", "list"])
def test_an_unknown_merchant_is_refused(service, action):
    extra = () if action == "list" else ("--key", "key_000000000000000000000000")
    done = _keys(service, action, "--merchant", "mch_nobody", *extra)
    assert done.returncode == 2 and done.stderr.startswith("paygate: --merchant:"), done.stderr


@pytest.mark.parametrize("action", ["revoke", "roll"])
def test_a_revoked_key_cannot_be_revoked_or_rolled_again(service, merchant, action):
    revoked = _revoke(service, merchant, merchant["test"]["secret_key"])
    done = _keys(service, action, "--merchant", merchant["merchant_id"], "--key", revoked["id"])
    assert done.returncode == 2 and done.stderr.startswith("paygate: --key:"), done.stderr
    assert {k["id"]: k["revoked_at"] for k in _listed(service, merchant)}[revoked["id"]] == revoked["revoked_at"]
    assert len(_listed(service, merchant)) == 4


def test_a_rolled_key_is_not_rolled_twice(service, merchant):
    rolled = _roll(service, merchant, merchant["test"]["secret_key"])
    done = _keys(service, "roll", "--merchant", merchant["merchant_id"], "--key", rolled["rolled_key_id"])
    assert done.returncode == 2 and done.stderr.startswith("paygate: --key:"), done.stderr
    assert len(_listed(service, merchant)) == 5


@pytest.mark.parametrize("grace", ["-1", "604801", "soon"])
def test_a_grace_outside_0_to_7_days_is_refused(service, merchant, grace):
    key = _key_of(service, merchant, merchant["test"]["secret_key"])
    done = _keys(service, "roll", "--merchant", merchant["merchant_id"], "--key", key["id"], "--grace-seconds", grace)
    assert done.returncode == 2 and "--grace-seconds" in done.stderr, done.stderr
    assert len(_listed(service, merchant)) == 4
