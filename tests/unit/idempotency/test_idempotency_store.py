"""server/idempotency/store.py on a fresh, migrated SQLite database (DESIGN.md §2, Idempotency-Key)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import col

from server.clock import now_of
from server.db import Database
from server.db.engine import before_commit
from server.db.migrate import upgrade
from server.errors import Conflict, InvalidArgument
from server.idempotency import store
from server.idempotency.models import IdempotencyKey
from tests.clock import SetClock

METHOD = "/paygate.v1.CustomerService/CreateCustomer"
DIGEST = store.request_hash(METHOD, b"\x0a\x03Ann")
T0 = 1_800_000_000


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'idem.db'}"
    upgrade(url)
    return url


@pytest.fixture
def clock() -> SetClock:
    """The clock of the Database under test, at a fixed Unix time until the test sets another."""
    return SetClock(T0)


def run(url: str, clock: SetClock, scenario: Callable[[Database], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        db = Database(url, clock=clock)
        try:
            return await scenario(db)
        finally:
            await db.close()
    return asyncio.run(main())


def claim(db: Database, key: str = "key-1", *, merchant: str = "mch_a", livemode: bool = False,
          method: str = METHOD, digest: str = DIGEST) -> Awaitable[store.Stored | store.Lease]:
    return store.claim(db, merchant, livemode, key, method, digest)


def owns(claimed: store.Stored | store.Lease) -> bool:
    """The claim made the caller the key's owner (rather than returning a stored outcome to replay)."""
    return isinstance(claimed, store.Lease)


def test_first_claim_owns_the_key(url, clock):
    assert owns(run(url, clock, lambda db: claim(db)))


def test_second_claim_while_in_progress_is_idempotency_in_progress(url, clock):
    async def scenario(db: Database) -> None:
        assert owns(await claim(db))
        await claim(db)

    with pytest.raises(Conflict) as caught:
        run(url, clock, scenario)
    assert caught.value.reason == "idempotency_in_progress"


def test_in_progress_conflict_maps_to_409(url, clock):
    async def scenario(db: Database) -> None:
        await claim(db)
        await claim(db)

    with pytest.raises(Conflict) as caught:
        run(url, clock, scenario)
    assert caught.value.code.name == "ABORTED"  # the standard gRPC → HTTP table maps ABORTED to 409


def test_lapsed_lease_lets_the_second_claim_take_over(url, clock):
    async def scenario(db: Database) -> store.Stored | store.Lease:
        assert owns(await claim(db))
        clock.at(T0 + store.LEASE_SECONDS + 1)
        return await claim(db)

    assert owns(run(url, clock, scenario))


def test_lease_still_running_one_second_before_it_lapses(url, clock):
    async def scenario(db: Database) -> None:
        await claim(db)
        clock.at(T0 + store.LEASE_SECONDS - 1)
        await claim(db)

    with pytest.raises(Conflict, match="in progress"):
        run(url, clock, scenario)


def test_taken_over_key_is_in_progress_again_for_a_third_claim(url, clock):
    async def scenario(db: Database) -> None:
        await claim(db)
        clock.at(T0 + store.LEASE_SECONDS + 1)
        assert owns(await claim(db))
        await claim(db)

    with pytest.raises(Conflict) as caught:
        run(url, clock, scenario)
    assert caught.value.reason == "idempotency_in_progress"


def test_completed_key_replays_the_stored_outcome(url, clock):
    async def scenario(db: Database) -> store.Stored | store.Lease:
        await claim(db)
        await store.complete(db, "mch_a", False, "key-1", store.Stored(store.OK, b"response-bytes"))
        return await claim(db)

    assert run(url, clock, scenario) == store.Stored(store.OK, b"response-bytes")


def test_completed_error_outcome_is_replayed_with_its_status(url, clock):
    async def scenario(db: Database) -> store.Stored | store.Lease:
        await claim(db)
        await store.complete(db, "mch_a", False, "key-1", store.Stored(3, b"status-bytes"))
        return await claim(db)

    assert run(url, clock, scenario) == store.Stored(3, b"status-bytes")


def test_same_key_with_a_different_request_is_idempotency_key_reused(url, clock):
    async def scenario(db: Database) -> None:
        await claim(db)
        await store.complete(db, "mch_a", False, "key-1", store.Stored(store.OK, b"x"))
        await claim(db, digest=store.request_hash(METHOD, b"other"))

    with pytest.raises(InvalidArgument) as caught:
        run(url, clock, scenario)
    assert caught.value.reason == "idempotency_key_reused"


def test_same_key_on_a_different_method_is_idempotency_key_reused(url, clock):
    async def scenario(db: Database) -> None:
        await claim(db)
        other = "/paygate.v1.ProductService/CreateProduct"
        await claim(db, method=other, digest=store.request_hash(other, b"\x0a\x03Ann"))

    with pytest.raises(InvalidArgument) as caught:
        run(url, clock, scenario)
    assert caught.value.reason == "idempotency_key_reused"


def test_keys_are_per_merchant(url, clock):
    async def scenario(db: Database) -> tuple[Any, Any]:
        return await claim(db, merchant="mch_a"), await claim(db, merchant="mch_b")

    assert all(owns(x) for x in run(url, clock, scenario))


def test_keys_are_per_mode(url, clock):
    async def scenario(db: Database) -> tuple[Any, Any]:
        return await claim(db, livemode=False), await claim(db, livemode=True)

    assert all(owns(x) for x in run(url, clock, scenario))


def test_released_key_can_be_claimed_again(url, clock):
    async def scenario(db: Database) -> store.Stored | store.Lease:
        await claim(db)
        await store.release(db, "mch_a", False, "key-1")
        return await claim(db)

    assert owns(run(url, clock, scenario))


def test_expired_outcome_is_forgotten_after_24_hours(url, clock):
    async def scenario(db: Database) -> store.Stored | store.Lease:
        await claim(db)
        await store.complete(db, "mch_a", False, "key-1", store.Stored(store.OK, b"old"))
        clock.at(T0 + store.TTL_SECONDS)
        return await claim(db, digest=store.request_hash(METHOD, b"new request"))

    assert owns(run(url, clock, scenario))


def test_outcome_is_still_replayed_just_before_24_hours(url, clock):
    async def scenario(db: Database) -> store.Stored | store.Lease:
        await claim(db)
        await store.complete(db, "mch_a", False, "key-1", store.Stored(store.OK, b"kept"))
        clock.at(T0 + store.TTL_SECONDS - 1)
        return await claim(db)

    assert run(url, clock, scenario) == store.Stored(store.OK, b"kept")


def test_purge_expired_removes_only_expired_keys(url, clock):
    async def scenario(db: Database) -> tuple[int, Any]:
        await claim(db, "old")
        clock.at(T0 + 10)
        await claim(db, "new")
        await store.complete(db, "mch_a", False, "new", store.Stored(store.OK, b"kept"))
        clock.at(T0 + store.TTL_SECONDS)
        purged = await store.purge_expired(db)
        return purged, await claim(db, "new")

    assert run(url, clock, scenario) == (1, store.Stored(store.OK, b"kept"))


@pytest.mark.parametrize("key", ["", "k" * (store.MAX_KEY_LENGTH + 1)])
def test_empty_or_too_long_key_is_parameter_invalid(url, clock, key):
    with pytest.raises(InvalidArgument) as caught:
        run(url, clock, lambda db: claim(db, key))
    assert caught.value.reason == "parameter_invalid" and caught.value.field == "Idempotency-Key"


# A key whose call wrote: `Lease.mark_committed` runs inside the call's write transaction (the before-commit hook).

async def _write_marked(db: Database, lease: store.Lease, *, fail: bool = False) -> None:
    token = before_commit.set(lease.mark_committed)
    try:
        async with db.transaction() as session:
            session.add(IdempotencyKey(merchant_id="side", livemode=False, key=f"effect-{now_of(session)}",
                                       method="m", request_hash="h", state="done", locked_until=0, created=0,
                                       expires_at=T0 + 10_000))
            if fail:
                raise RuntimeError("the call failed before its commit")
    finally:
        before_commit.reset(token)


async def _state(db: Database, key: str = "key-1") -> str | None:
    async with db.read() as session:
        row = await session.get(IdempotencyKey, ("mch_a", False, key))
        return row.state if row else None


def test_a_write_of_the_call_marks_the_key_committed_in_its_own_transaction(url, clock):
    async def scenario(db: Database) -> tuple[str | None, bool]:
        lease = await claim(db)
        assert isinstance(lease, store.Lease)
        await _write_marked(db, lease)
        return await _state(db), lease.commit_began

    assert run(url, clock, scenario) == ("committed", True)


def test_a_rolled_back_write_leaves_the_key_in_progress(url, clock):
    async def scenario(db: Database) -> str | None:
        lease = await claim(db)
        assert isinstance(lease, store.Lease)
        with pytest.raises(RuntimeError):
            await _write_marked(db, lease, fail=True)
        return await _state(db)

    assert run(url, clock, scenario) == "in_progress"


def test_a_committed_key_is_never_taken_over_after_its_lease(url, clock):
    async def scenario(db: Database) -> None:
        lease = await claim(db)
        assert isinstance(lease, store.Lease)
        await _write_marked(db, lease)
        clock.at(T0 + store.LEASE_SECONDS + 1)
        await claim(db)

    with pytest.raises(Conflict) as caught:
        run(url, clock, scenario)
    assert caught.value.reason == store.ANSWER_LOST and "applied" in caught.value.message


def test_a_committed_key_is_in_progress_while_its_lease_runs(url, clock):
    async def scenario(db: Database) -> None:
        lease = await claim(db)
        assert isinstance(lease, store.Lease)
        await _write_marked(db, lease)
        await claim(db)

    with pytest.raises(Conflict) as caught:
        run(url, clock, scenario)
    assert caught.value.reason == "idempotency_in_progress"


def test_release_never_forgets_a_committed_key(url, clock):
    async def scenario(db: Database) -> str | None:
        lease = await claim(db)
        assert isinstance(lease, store.Lease)
        await _write_marked(db, lease)
        await store.release(db, "mch_a", False, "key-1")
        return await _state(db)

    assert run(url, clock, scenario) == "committed"


def test_an_attempt_whose_key_was_taken_over_cannot_commit(url, clock):
    async def scenario(db: Database) -> tuple[str, int]:
        first = await claim(db)
        assert isinstance(first, store.Lease)
        clock.at(T0 + store.LEASE_SECONDS + 1)
        assert isinstance(await claim(db), store.Lease)  # the first attempt looked dead: taken over
        with pytest.raises(Conflict) as caught:
            await _write_marked(db, first)
        async with db.read() as session:
            effects = (await session.exec(sa.select(sa.func.count()).select_from(IdempotencyKey)
                                          .where(col(IdempotencyKey.merchant_id) == "side"))).one()
        return caught.value.reason, int(effects[0])

    assert run(url, clock, scenario) == ("idempotency_in_progress", 0)
