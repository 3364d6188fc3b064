"""A stored outcome of an idempotent call is sealed at rest (DESIGN §14): it may hold a webhook signing secret or a
client secret. A replay opens it to the very bytes first answered; rows stored in clear before sealing still replay."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from cryptography.fernet import Fernet

from server.db import Database
from server.errors import Unavailable
from server.idempotency import store
from server.sealing import SecretBox
from tests.clock import SetClock
from tests.unit.idempotency import test_idempotency_store as store_tests

METHOD = "/paygate.v1.WebhookEndpointService/CreateWebhookEndpoint"
DIGEST = store.request_hash(METHOD, b"\x0a\x05hook!")
T0 = store_tests.T0
url = store_tests.url  # the fixture: a migrated SQLite database
KEY = Fernet.generate_key().decode()
# Not valid UTF-8, and holding a signing secret: what a serialized response with a secret in it looks like.
ANSWER = b"\x0a\x1cwe_1\xff\x00\x12\x0bwhsec_abc123"


@pytest.fixture
def box(tmp_path: Path) -> SecretBox:
    return SecretBox(KEY, tmp_path)


def run(url: str, scenario: Callable[[Database], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        db = Database(url, clock=SetClock(T0))
        try:
            return await scenario(db)
        finally:
            await db.close()
    return asyncio.run(main())


def stored_column(url: str, key: str = "key-1") -> bytes:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            value = conn.execute(sa.text("SELECT response FROM idempotency_keys WHERE key = :k"),
                                 {"k": key}).scalar_one()
    finally:
        engine.dispose()
    return bytes(value)


def answer_once(box: SecretBox, outcome: store.Stored, *, livemode: bool = False) -> Callable[[Database], Any]:
    async def scenario(db: Database) -> None:
        assert isinstance(await store.claim(db, "mch_a", livemode, "key-1", METHOD, DIGEST, box=box), store.Lease)
        await store.complete(db, "mch_a", livemode, "key-1", outcome, box=box)
    return scenario


def replay(box: SecretBox, *, livemode: bool = False) -> Callable[[Database], Any]:
    def scenario(db: Database) -> Awaitable[store.Stored | store.Lease]:
        return store.claim(db, "mch_a", livemode, "key-1", METHOD, DIGEST, box=box)
    return scenario


def test_a_stored_response_is_sealed_in_its_column(url, box):
    run(url, answer_once(box, store.Stored(store.OK, ANSWER)))
    column = stored_column(url)
    assert column.startswith(b"fernet:")
    assert b"whsec_" not in column and ANSWER not in column


def test_a_sealed_response_replays_as_the_bytes_first_answered(url, box):
    run(url, answer_once(box, store.Stored(store.OK, ANSWER)))
    assert run(url, replay(box)) == store.Stored(store.OK, ANSWER)


def test_a_sealed_response_replays_in_a_new_process_with_the_same_key(url, box, tmp_path):
    run(url, answer_once(box, store.Stored(store.OK, ANSWER)))
    assert run(url, replay(SecretBox(KEY, tmp_path / "elsewhere"))) == store.Stored(store.OK, ANSWER)


def test_a_live_mode_response_is_sealed_and_replays(url, box):
    run(url, answer_once(box, store.Stored(store.OK, ANSWER), livemode=True))
    assert b"whsec_" not in stored_column(url)
    assert run(url, replay(box, livemode=True)) == store.Stored(store.OK, ANSWER)


def test_a_stored_error_outcome_is_sealed_and_replays(url, box):
    run(url, answer_once(box, store.Stored(9, b"\x08\x09\x12\x07refused")))
    assert b"refused" not in stored_column(url)
    assert run(url, replay(box)) == store.Stored(9, b"\x08\x09\x12\x07refused")


def test_an_empty_response_is_sealed_and_replays_empty(url, box):
    run(url, answer_once(box, store.Stored(store.OK, b"")))
    assert stored_column(url).startswith(b"fernet:")
    assert run(url, replay(box)) == store.Stored(store.OK, b"")


def test_a_response_stored_in_clear_before_sealing_still_replays_as_stored(url, box):
    run(url, answer_once(box, store.Stored(store.OK, ANSWER)))
    engine = sa.create_engine(url)
    with engine.begin() as conn:  # the row as code before sealing wrote it
        conn.execute(sa.text("UPDATE idempotency_keys SET response = :r"), {"r": ANSWER})
    engine.dispose()
    assert run(url, replay(box)) == store.Stored(store.OK, ANSWER)


def test_a_response_sealed_under_a_key_no_longer_configured_is_unavailable(url, box, tmp_path):
    run(url, answer_once(box, store.Stored(store.OK, ANSWER)))
    with pytest.raises(Unavailable, match="not configured"):
        run(url, replay(SecretBox(Fernet.generate_key().decode(), tmp_path)))


def test_live_mode_without_an_encryption_key_is_refused_before_the_call_runs(url, tmp_path):
    # Its answer could not be stored sealed: refused now, rather than after its side effect has committed.
    with pytest.raises(Unavailable, match="encryption_key"):
        run(url, lambda db: store.claim(db, "mch_a", True, "key-1", METHOD, DIGEST, box=SecretBox("", tmp_path)))
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM idempotency_keys")).scalar() == 0
    engine.dispose()


def test_test_mode_without_an_encryption_key_seals_with_the_development_key(url, tmp_path):
    box = SecretBox("", tmp_path)
    run(url, answer_once(box, store.Stored(store.OK, ANSWER)))
    assert b"whsec_" not in stored_column(url) and (tmp_path / "encryption.key").exists()
    assert run(url, replay(box)) == store.Stored(store.OK, ANSWER)
