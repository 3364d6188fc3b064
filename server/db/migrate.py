"""Schema migrations with Alembic, driven from code (`paygate migrate`, `paygate serve` on SQLite)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from server.db.engine import configure_sqlite, ensure_sqlite_dir, sync_url

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
# PostgreSQL: how long a migration waits for a table's lock before it gives up. A DDL statement queued behind a
# long transaction holds its place in the lock queue, and every live read and write of that table waits behind it;
# giving up after a few seconds (and being run again) stalls the service for no longer than that.
LOCK_TIMEOUT_SECONDS = 10


def _config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", sync_url(url).replace("%", "%%"))
    return cfg


def _engine(url: str) -> sa.Engine:
    ensure_sqlite_dir(url)
    engine = sa.create_engine(sync_url(url), poolclass=sa.pool.NullPool)
    if url.startswith("sqlite"):
        configure_sqlite(engine)
    return engine


@cache
def head_revision() -> str:
    """The newest revision; several comma-joined while parallel branches await their merge revision. Read once per
    process: Alembic parses every migration script to find it (a new merchant's schema check spent most of its time
    there)."""
    return ",".join(sorted(ScriptDirectory.from_config(_config("sqlite://")).get_heads()))


def current_revision(url: str) -> str:
    engine = _engine(url)
    try:
        with engine.connect() as conn:
            return ",".join(sorted(MigrationContext.configure(conn).get_current_heads()))
    finally:
        engine.dispose()


def upgrade(url: str, revision: str = "heads") -> None:
    """Migrates `url` to `revision` in one transaction. On PostgreSQL a table lock not granted within
    LOCK_TIMEOUT_SECONDS fails the migration (`LockNotAvailable`), nothing applied: run it again later."""
    cfg = _config(url)
    engine = _engine(url)
    try:
        with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.exec_driver_sql(f"SET LOCAL lock_timeout = '{int(LOCK_TIMEOUT_SECONDS * 1000)}ms'")
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, revision)
    finally:
        engine.dispose()


def autogenerate(url: str, message: str, *, head: str = "head", rev_id: str | None = None) -> None:
    """Developer helper: write a new revision from the difference between the models and `url` (migrated first)."""
    cfg = _config(url)
    engine = _engine(url)
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.revision(cfg, message=message, autogenerate=True, head=head, rev_id=rev_id)
    finally:
        engine.dispose()
