"""What the `paygate` commands and `serve` share to start: the operator's one-line stop, the schema check, the
runtime and a bare database."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.config import Settings, redact_url

if TYPE_CHECKING:
    from server.clock import Clock
    from server.db.engine import Database
    from server.runtime import Runtime


class Stop(Exception):
    """Ends the command with one line for the operator and an exit status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def migrate_schema(settings: Settings, *, announce: bool = False) -> None:
    from server.db import migrate

    try:
        migrate.upgrade(settings.database_url)
    except Exception as e:
        raise Stop(f"cannot migrate the database at {safe_url(settings.database_url)}: {reason(e)}") from None
    if announce:
        print(f"database at revision {migrate.head_revision()}")


def safe_url(url: str) -> str:
    """The URL without a password (config.redact_url)."""
    return redact_url(url)


def reason(e: BaseException) -> str:
    text = str(getattr(e, "orig", None) or e).strip().splitlines()
    return text[0] if text else type(e).__name__


def runtime(settings: Settings, clock: Clock | None = None) -> Runtime:
    """The process's runtime (server/boot/composition.py); a bad networks file stops the command."""
    from server.boot.composition import compose
    from server.catalogue.catalogue import CatalogueError

    try:
        return compose(settings, clock=clock)
    except CatalogueError as e:
        raise Stop(str(e), 2) from None


def database(settings: Settings) -> Database:
    """The database alone, for commands that touch no chain: composing the runtime loads the rails (web3, key
    derivation), seconds of start-up an operator's one-row change should not wait for."""
    from server.db.engine import Database

    return Database(settings.database_url, group_commit=False,
                    transaction_pooling=settings.database_transaction_pooling)


def ensure_schema(settings: Settings) -> None:
    """SQLite (the embedded default) is migrated on the spot; PostgreSQL must be migrated on purpose."""
    from server.db import migrate

    try:
        current = migrate.current_revision(settings.database_url)
    except Exception as e:
        raise Stop(f"cannot reach the database at {safe_url(settings.database_url)}: {reason(e)}") from None
    head = migrate.head_revision()
    if current == head:
        return
    if settings.is_sqlite:
        migrate_schema(settings)
        return
    raise Stop(f"the database schema is at revision {current or 'none'}, this build needs {head}: "
               "run `paygate migrate` first")
