"""A database that cannot take the work now is a 503 the client may retry, never a 500: here another process holds
SQLite's write lock past the busy timeout (the same answer covers PostgreSQL's connection limit)."""

from __future__ import annotations

import sqlite3
from typing import Any

import httpx
import pytest

from tests.conftest import fails, ok
from tests.harness import Service


def test_a_write_the_database_cannot_take_now_is_503_service_unavailable(service: Service, api: httpx.Client,
                                                                          merchant: dict[str, Any]) -> None:
    if service.kind != "sqlite":
        pytest.skip("an outside lock on the database file is SQLite's case")
    before = ok(api.get("/v1/customers"))["total"]
    holder = sqlite3.connect(service.database_url.removeprefix("sqlite:///"), timeout=30, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # another process's writer, for longer than the 10 s busy timeout
        response = api.post("/v1/customers", json={"name": "Ann"}, timeout=60)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    body = fails(response, 503, "service_unavailable")
    assert "try again" in body["msg"] and "Traceback" not in response.text
    ok(api.post("/v1/customers", json={"name": "Ann"}))  # the lock gone, the same call succeeds
    assert ok(api.get("/v1/customers"))["total"] == before + 1
