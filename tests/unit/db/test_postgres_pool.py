"""PostgreSQL pools (server/db/postgres_pool.py): each is named in `pg_stat_activity`, a steady load reuses its kept
connections instead of opening a backend per checkout, a connection is pinged only after it sat idle, and one that
died while idle is replaced before anyone uses it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from server.boot.composition import compose
from server.config import load_settings
from server.db import Database
from server.db.engine import async_url
from server.db.postgres_pool import IDLE_SECONDS, postgres_engine
from server.ratelimit.buckets import Limit, PostgresBuckets
from server.rpc.auth import _EngineKeys
from tests.harness import TEST_NETWORKS, migrated_database

PID = sa.text("SELECT pg_backend_pid()")


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    yield from migrated_database("postgresql", tmp_path)


async def names_in_activity(url: str) -> set[str]:
    engine = postgres_engine(async_url(url), name="observer", pool_size=1, max_overflow=0)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(sa.text("SELECT application_name FROM pg_stat_activity "
                                              "WHERE datname = current_database()"))
            return {r[0] for r in rows}
    finally:
        await engine.dispose()


async def terminate(url: str, pid: int) -> None:
    engine = postgres_engine(async_url(url), name="observer", pool_size=1, max_overflow=0)
    try:
        async with engine.connect() as conn:
            await conn.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            await conn.commit()
    finally:
        await engine.dispose()


async def pid_of_next_unit(db: Database) -> int:
    async with db.transaction() as session:
        return int((await session.exec(PID)).one()[0])  # type: ignore[call-overload]


def count_pings(monkeypatch: pytest.MonkeyPatch, db: Database) -> list[int]:
    pings: list[int] = []
    dialect = db.engine.sync_engine.dialect
    real = dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        pings.append(1)
        return real(dbapi_connection)

    monkeypatch.setattr(dialect, "do_ping", counted)
    return pings


def test_units_of_work_name_their_connections_paygate(url: str) -> None:
    async def scenario() -> set[str]:
        db = Database(url)
        try:
            await pid_of_next_unit(db)
            return await names_in_activity(url)
        finally:
            await db.close()

    assert "paygate" in asyncio.run(scenario())


def test_key_look_ups_name_their_connections_paygate_keys(url: str) -> None:
    async def scenario() -> set[str]:
        keys = _EngineKeys(url)
        try:
            assert await keys.find("no-such-lookup") is None
            return await names_in_activity(url)
        finally:
            await keys.close()

    assert "paygate-keys" in asyncio.run(scenario())


def test_rate_limit_buckets_name_their_connections_paygate_ratelimit(url: str) -> None:
    async def scenario() -> set[str]:
        db = Database(url)
        buckets = PostgresBuckets(db, idle_seconds=60)
        try:
            assert await buckets.take([("ip:203.0.113.9", Limit(rate=10, burst=20))]) == 0
            return await names_in_activity(url)
        finally:
            await buckets.close()
            await db.close()

    assert "paygate-ratelimit" in asyncio.run(scenario())


async def distinct_backends(rounds: int, concurrency: int, one: Callable[[], Awaitable[int]]) -> set[int]:
    pids: set[int] = set()
    for _ in range(rounds):
        pids.update(await asyncio.gather(*(one() for _ in range(concurrency))))
    return pids


def test_a_steady_load_of_key_look_ups_reuses_kept_connections(url: str) -> None:
    """16 concurrent look-ups, 6 times, share the key pool's three kept connections (the old 2 + 3 pool opened a
    backend for most look-ups under load)."""
    async def scenario() -> set[int]:
        keys = _EngineKeys(url)

        async def look_up() -> int:
            assert await keys.find("no-such-lookup") is None
            async with keys._engine.connect() as conn:
                return int((await conn.execute(PID)).scalar_one())

        try:
            return await distinct_backends(6, 16, look_up)
        finally:
            await keys.close()

    assert len(asyncio.run(scenario())) <= 3


def test_a_connection_used_within_the_idle_window_is_not_pinged(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> tuple[int, int]:
        db = Database(url)
        pings = count_pings(monkeypatch, db)
        try:
            first = await pid_of_next_unit(db)
            for _ in range(5):
                assert await pid_of_next_unit(db) == first
            return len(pings), first
        finally:
            await db.close()

    pings, _ = asyncio.run(scenario())
    assert pings == 0


def test_a_connection_idle_past_the_window_is_pinged_before_use(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> int:
        db = Database(url)
        pings = count_pings(monkeypatch, db)
        try:
            await pid_of_next_unit(db)
            await asyncio.sleep(IDLE_SECONDS + 0.2)
            await pid_of_next_unit(db)
            return len(pings)
        finally:
            await db.close()

    assert asyncio.run(scenario()) == 1


def test_a_connection_killed_while_idle_is_replaced_before_use(url: str) -> None:
    """A backend terminated while its connection sat in the pool (a server restart, an operator's
    pg_terminate_backend, an idle timeout) costs the next unit of work nothing: the ping finds it dead and the
    checkout connects afresh."""
    async def scenario() -> tuple[int, int]:
        db = Database(url)
        try:
            before = await pid_of_next_unit(db)
            await terminate(url, before)
            await asyncio.sleep(IDLE_SECONDS + 0.2)
            return before, await pid_of_next_unit(db)
        finally:
            await db.close()

    before, after = asyncio.run(scenario())
    assert after != before


def test_a_runtime_keeps_the_configured_number_of_connections_for_units_of_work(url: str, tmp_path: Path) -> None:
    networks = tmp_path / "networks.toml"
    networks.write_text(TEST_NETWORKS)
    rt = compose(load_settings({"PAYGATE_DATABASE_URL": url, "PAYGATE_NETWORKS": str(networks),
                                "PAYGATE_DATABASE_POOL_SIZE": "7"}), var_dir=tmp_path / "var")

    async def kept() -> int:
        try:
            return int(rt.db.engine.pool.size())  # type: ignore[attr-defined]
        finally:
            await rt.db.close()

    assert asyncio.run(kept()) == 7


def test_behind_a_transaction_pooler_nothing_is_prepared_and_no_server_setting_is_sent(url: str) -> None:
    """psycopg prepares a statement by name after its fifth run, and a pooler in transaction mode may run the next
    one on a server connection that lacks it (tests/e2e/http/test_behind_pgbouncer.py shows the whole service)."""
    async def scenario() -> tuple[Any, str, Any, str]:
        pooled = postgres_engine(async_url(url), name="pooled", pool_size=1, max_overflow=0,
                                 options="-c synchronous_commit=off", transaction_pooling=True)
        direct = postgres_engine(async_url(url), name="direct", pool_size=1, max_overflow=0,
                                 options="-c synchronous_commit=off")
        try:
            seen = []
            for engine in (pooled, direct):
                async with engine.connect() as conn:
                    for _ in range(8):
                        setting = (await conn.execute(sa.text("SHOW synchronous_commit"))).scalar_one()
                    raw = await conn.get_raw_connection()
                    seen += [raw.driver_connection.prepare_threshold, setting]
            return tuple(seen)  # type: ignore[return-value]
        finally:
            await pooled.dispose()
            await direct.dispose()

    assert asyncio.run(scenario()) == (None, "on", 5, "off")
