"""Only values shaped like a key are looked up as keys (DESIGN.md §14), and a revoked key stops at once."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import httpx
import sqlalchemy as sa
from paygate.v1 import customers_pb2 as pb
from paygate.v1 import customers_pb2_grpc

from server.db import Database
from tests.conftest import fails, http_client, ok
from tests.e2e.grpc.support import fails as grpc_fails
from tests.harness import Service


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
    _sql(service, "UPDATE api_keys SET revoked_at = 1 WHERE merchant_id = :m AND kind = 'secret'",
         m=merchant["merchant_id"])
    fails(api.get("/v1/customers"), 401, "unauthorized")


def test_a_revoked_key_stops_at_once_over_grpc(service, merchant, channel, grpc_auth):
    stub = customers_pb2_grpc.CustomerServiceStub(channel)
    stub.ListCustomers(pb.ListCustomersRequest(), metadata=grpc_auth)
    _sql(service, "UPDATE api_keys SET revoked_at = 1 WHERE merchant_id = :m AND kind = 'secret'",
         m=merchant["merchant_id"])
    grpc_fails(lambda: stub.ListCustomers(pb.ListCustomersRequest(), metadata=grpc_auth),
               grpc.StatusCode.UNAUTHENTICATED, "unauthorized")


def test_the_public_key_still_works_for_checkout(anonymous: httpx.Client, merchant):
    response = anonymous.post("/v1/payment_intents/link/pi_000000000000000000000000",
                              json={"key": merchant["test"]["public_key"], "client_secret": "x"})
    fails(response, 404, "payment_intent_not_found")
