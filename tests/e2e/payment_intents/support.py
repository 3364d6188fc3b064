"""Helpers of the payment intent end-to-end tests: bodies, the service's database, the expiry job."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from sqlmodel import col, select

from server.boot.composition import compose
from server.config import load_settings
from server.db import Database
from server.events.models import Event
from server.payment_intents.expiry import expire_due
from tests.conftest import ok
from tests.harness import Service

TEST_ETH, TEST_USDT, TEST_USDC = "ETH-ETH-TEST", "USDT-ETH-TEST", "USDC-ETH-TEST"


def crypto(asset_id: str) -> dict[str, Any]:
    return {"payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": asset_id}}}


def create(api: httpx.Client, **fields: Any) -> dict[str, Any]:
    body = {"amount": "10.50", "currency": "USD", **fields}
    return ok(api.post("/v1/payment_intents", json=body))  # type: ignore[no-any-return]


def choose(api: httpx.Client, intent_id: str, asset_id: str) -> dict[str, Any]:
    data = ok(api.post(f"/v1/payment_intents/{intent_id}", json=crypto(asset_id)))
    assert data["total"] == 1 and data["page"] == 0 and data["page_size"] == 1
    assert len(data["payment_intents"]) == 1
    return data["payment_intents"][0]  # type: ignore[no-any-return]


def events_of(service: Service, object_id: str) -> list[tuple[str, dict[str, Any]]]:
    async def query() -> list[tuple[str, dict[str, Any]]]:
        db = Database(service.database_url)
        try:
            async with db.read() as s:
                rows = await s.exec(select(Event).where(Event.object_id == object_id).order_by(col(Event.sort_key)))
                return [(r.type, json.loads(r.data) if isinstance(r.data, str) else r.data) for r in rows]
        finally:
            await db.close()

    return asyncio.run(query())


def run_expiry_job(service: Service) -> int:
    """The scheduler's expiry job, driven directly against the service's database and configuration."""
    async def run() -> int:
        rt = compose(load_settings(service.env), var_dir=service.workdir / "var")
        try:
            return await expire_due(rt.db, rt)
        finally:
            await rt.db.close()

    return asyncio.run(run())
