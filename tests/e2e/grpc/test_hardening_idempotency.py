"""An idempotent request whose side effect committed is never run twice: not when its client gave up (a short
gRPC deadline) after the commit, and not when a retry comes after the key's lease has lapsed (DESIGN.md §2)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import sqlalchemy as sa
from paygate.v1 import customers_pb2 as pb
from paygate.v1 import customers_pb2_grpc

from server.db import Database
from tests.e2e.grpc.own_service import own_service
from tests.e2e.grpc.support import fails
from tests.harness import Service

CALLS = 120


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def svc(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    yield from own_service(request, tmp_path_factory)


@pytest.fixture
def stub(svc: Service) -> Iterator[customers_pb2_grpc.CustomerServiceStub]:
    with grpc.insecure_channel(svc.grpc_addr) as channel:
        yield customers_pb2_grpc.CustomerServiceStub(channel)


def _names(stub: customers_pb2_grpc.CustomerServiceStub, auth: list[tuple[str, str]]) -> Counter[str]:
    names: Counter[str] = Counter()
    page = 0
    while True:
        got = stub.ListCustomers(pb.ListCustomersRequest(page=page, page_size=100), metadata=auth)
        names.update(c.name for c in got.customers)
        if len(got.customers) < 100:
            return names
        page += 1


def _sql(svc: Service, statement: str, **params: Any) -> None:
    async def run() -> None:
        db = Database(svc.database_url)
        try:
            async with db.transaction() as session:
                await session.execute(sa.text(statement), params)
        finally:
            await db.close()
    asyncio.run(run())


def test_a_create_whose_client_gave_up_is_replayed_by_its_retry_never_run_twice(svc, stub):
    auth = [("authorization", f"Bearer {svc.create_merchant()['test']['secret_key']}")]
    rng = random.Random(3)
    # Deadlines spread over the call's own duration, so that some clients leave after the commit.
    futures = [stub.CreateCustomer.future(pb.CreateCustomerRequest(name=f"idem-{i}"),
                                          metadata=[*auth, ("idempotency-key", f"cut-{i}")],
                                          timeout=rng.uniform(0.005, 0.400)) for i in range(CALLS)]
    for f in futures:
        with contextlib.suppress(grpc.RpcError):
            f.result()
    answered = 0
    for i in range(CALLS):
        request = pb.CreateCustomerRequest(name=f"idem-{i}")
        for _ in range(50):  # a first attempt still finishing answers idempotency_in_progress for a moment
            try:
                got = stub.CreateCustomer(request, metadata=[*auth, ("idempotency-key", f"cut-{i}")], timeout=30)
                assert got.customer.name == f"idem-{i}"
                answered += 1
                break
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.ABORTED, e  # type: ignore[attr-defined]
                time.sleep(0.1)
    assert answered == CALLS  # every retry got the (stored or new) answer
    twice = [name for name, count in _names(stub, auth).items() if count > 1]
    assert twice == []


def test_a_committed_request_whose_answer_was_lost_never_runs_again_after_its_lease(svc, stub):
    # The state a process leaves when it dies after the commit and before storing the answer.
    merchant = svc.create_merchant()
    auth = [("authorization", f"Bearer {merchant['test']['secret_key']}"), ("idempotency-key", "lost-answer")]
    stub.CreateCustomer(pb.CreateCustomerRequest(name="once"), metadata=auth, timeout=30)
    _sql(svc, "UPDATE idempotency_keys SET state = 'committed', response = NULL, locked_until = 0 "
              "WHERE merchant_id = :m AND key = 'lost-answer'", m=merchant["merchant_id"])
    err = fails(lambda: stub.CreateCustomer(pb.CreateCustomerRequest(name="once"), metadata=auth, timeout=30),
                grpc.StatusCode.ABORTED, "idempotency_answer_lost")
    assert "applied" in (err.details() or "")  # type: ignore[attr-defined]
    assert _names(stub, auth[:1]) == Counter({"once": 1})


def test_a_request_that_never_wrote_is_taken_over_after_its_lease(svc, stub):
    # The state a process leaves when it dies before any write of the call: the retry runs it.
    merchant = svc.create_merchant()
    auth = [("authorization", f"Bearer {merchant['test']['secret_key']}"), ("idempotency-key", "died-early")]
    digest_of_first = "x" * 64
    _sql(svc, "INSERT INTO idempotency_keys (merchant_id, livemode, key, method, request_hash, state, locked_until, "
              "status_code, created, expires_at) VALUES (:m, false, 'died-early', "
              "'/paygate.v1.CustomerService/CreateCustomer', :h, 'in_progress', 0, 0, 0, :exp)",
         m=merchant["merchant_id"], h=digest_of_first, exp=int(time.time()) + 3600)
    # A different body would be idempotency_key_reused: store the real digest by replaying the request's bytes.
    from server.idempotency import store
    real = store.request_hash("/paygate.v1.CustomerService/CreateCustomer",
                              pb.CreateCustomerRequest(name="later").SerializeToString(deterministic=True))
    _sql(svc, "UPDATE idempotency_keys SET request_hash = :h WHERE key = 'died-early'", h=real)
    got = stub.CreateCustomer(pb.CreateCustomerRequest(name="later"), metadata=auth, timeout=30)
    assert got.customer.name == "later"
    assert _names(stub, auth[:1]) == Counter({"later": 1})
