"""Logs never carry a secret (DESIGN.md §14): no chain RPC URL's path (providers put API keys there), no webhook
URL's query, no database password, no SQL parameter."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

from server.db import Database
from server.db.migrate import upgrade
from server.logs import JsonFormatter

RPC_URL = "https://mainnet.example-rpc.io/v3/PROVIDERKEY123"


def _line(msg: str, *, extra: dict[str, object] | None = None, error: BaseException | None = None) -> str:
    record = logging.LogRecord("paygate.test", logging.WARNING, __file__, 1, msg, (), None)
    if error is not None:
        try:
            raise error
        except BaseException:
            record.exc_info = sys.exc_info()
    for key, value in (extra or {}).items():
        setattr(record, key, value)
    return JsonFormatter().format(record)


def test_rpc_url_path_is_not_logged_from_an_extra_field():
    line = _line("chain scan stopped", extra={"reason": f"{RPC_URL}: eth_getLogs: timed out"})
    assert "PROVIDERKEY123" not in line and "mainnet.example-rpc.io" in line


def test_rpc_url_path_is_not_logged_from_an_exception():
    line = _line("chain watcher pass failed", error=ConnectionError(f"HTTPSConnectionPool: url={RPC_URL}"))
    assert "PROVIDERKEY123" not in line


def test_webhook_url_query_is_not_logged():
    line = _line("delivery to https://hooks.example.com/in?token=SECRETTOKEN failed")
    assert "SECRETTOKEN" not in line and "hooks.example.com" in line


def test_database_password_is_not_logged():
    assert "DBPASSWORD" not in _line("database unreachable", extra={"error": "postgresql://u:DBPASSWORD@db/paygate"})


def test_sql_parameters_are_not_in_database_errors(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'p.db'}"
    upgrade(url)

    async def duplicate_insert() -> str:
        db = Database(url)
        statement = sa.text("INSERT INTO merchants (id, name, created) VALUES (:id, :name, 0)")
        try:
            async with db.transaction() as session:
                await session.execute(statement, {"id": "mch_dup", "name": "PARAMSECRET"})
            with pytest.raises(sa.exc.IntegrityError) as caught:
                async with db.transaction() as session:
                    await session.execute(statement, {"id": "mch_dup", "name": "PARAMSECRET"})
            return str(caught.value)
        finally:
            await db.close()

    assert "PARAMSECRET" not in asyncio.run(duplicate_insert())
