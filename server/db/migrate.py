"""Schema migrations with Alembic, driven from code (`paygate migrate`, `paygate serve` on SQLite)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from server.db.engine import configure_sqlite, ensure_sqlite_dir, sync_url

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


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


def head_revision() -> str:
    """The newest revision; several comma-joined while parallel branches await their merge revision."""
    return ",".join(sorted(ScriptDirectory.from_config(_config("sqlite://")).get_heads()))


def current_revision(url: str) -> str:
    engine = _engine(url)
    try:
        with engine.connect() as conn:
            return ",".join(sorted(MigrationContext.configure(conn).get_current_heads()))
    finally:
        engine.dispose()


def upgrade(url: str, revision: str = "heads") -> None:
    cfg = _config(url)
    engine = _engine(url)
    try:
        with engine.begin() as conn:
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
