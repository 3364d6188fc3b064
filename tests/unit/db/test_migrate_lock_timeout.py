"""`paygate migrate` on a PostgreSQL database in use (server/db/migrate.py): a migration that cannot get a table's
lock gives up after LOCK_TIMEOUT_SECONDS, applying nothing, instead of queueing every live query of that table
behind it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from server.db import migrate
from server.db.engine import sync_url
from tests.harness import create_database, drop_database

BEFORE = "0024"  # 0025 alters chain_transfers


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    made = create_database("postgresql", tmp_path)
    migrate.upgrade(made, BEFORE)
    yield made
    drop_database(made)


def test_a_migration_blocked_by_a_live_transaction_gives_up_and_applies_nothing(
        url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(migrate, "LOCK_TIMEOUT_SECONDS", 1)
    live = sa.create_engine(sync_url(url), poolclass=sa.pool.NullPool)
    try:
        with live.connect() as reader, reader.begin():
            reader.execute(sa.text("SELECT count(*) FROM chain_transfers")).one()  # a live read, still open
            with pytest.raises(sa.exc.OperationalError, match="lock timeout"):
                migrate.upgrade(url)
        assert migrate.current_revision(url) == BEFORE
    finally:
        live.dispose()
    migrate.upgrade(url)  # once the table is free it goes through
    assert migrate.current_revision(url) == migrate.head_revision()
