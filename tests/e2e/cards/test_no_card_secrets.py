"""No card number, CVC or provider_a secret key in the database, a log line or a response (DESIGN §9, §14)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

from tests.e2e.cards.support import (
    DECLINED,
    SUCCEEDS,
    THREE_D_SECURE,
    choose_card,
    new_intent,
    refund_ends,
    wait_for,
)
from tests.harness import Service
from tests.localstripe import LocalStripe

CVC = "719"


def database_dump(service: Service) -> str:
    engine = sa.create_engine(service.database_url.replace("postgresql://", "postgresql+psycopg://"))
    out: list[str] = []
    try:
        with engine.connect() as conn:
            for table in sa.inspect(conn).get_table_names():
                for row in conn.execute(sa.text(f'SELECT * FROM "{table}"')):
                    out.append(f"{table}: {tuple(row)!r}")
    finally:
        engine.dispose()
    return "\n".join(out)


def database_files(service: Service) -> str:
    """The database as stored, not only as rows read back: SQLite's file and its journals byte for byte (free pages
    keep what was deleted or overwritten), PostgreSQL's `pg_dump`."""
    if service.kind == "sqlite":
        db = Path(service.database_url.removeprefix("sqlite:///"))
        files = [p for p in (db, Path(f"{db}-wal"), Path(f"{db}-journal")) if p.exists()]
        assert db in files
        return "\n".join(p.read_bytes().decode("latin-1") for p in files)
    done = subprocess.run(["pg_dump", "--no-owner", service.database_url], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PGCONNECT_TIMEOUT": "10"})
    assert done.returncode == 0, done.stderr
    return done.stdout


def log_text(log: str) -> str:
    """The strings of the JSON log lines (keys and values; lines that are not JSON as they are), without their
    numbers: a request's `ms` once held 719, the test's CVC, by chance. A leaked CVC would be text."""
    out: list[str] = []

    def strings(value: object) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                out.append(str(key))
                strings(item)
        elif isinstance(value, list):
            for item in value:
                strings(item)

    for line in log.splitlines():
        try:
            strings(json.loads(line))
        except ValueError:
            out.append(line)
    return "\n".join(out)


def test_no_card_number_cvc_or_provider_secret_key_is_stored_logged_or_answered(
        service: Service, api: httpx.Client, anonymous: httpx.Client, merchant: dict[str, Any],
        localstripe: LocalStripe) -> None:
    pk, sk = merchant["provider_a"]["publishable_key"], merchant["provider_a"]["secret_key"]
    whsec = merchant["provider_a"]["webhook_secret"]
    localstripe.register_webhook(f"{service.http_url}/webhooks/provider_a/{merchant['merchant_id']}", whsec)
    answers: list[str] = []

    def keep(r: httpx.Response) -> httpx.Response:
        answers.append(r.text)
        return r

    ann = keep(api.post("/v1/customers", json={"name": "Ann", "email": "ann@example.com"})).json()["data"]
    for number in (SUCCEEDS, DECLINED, THREE_D_SECURE):
        intent = new_intent(api, customer=ann["id"])
        keep(choose_card(api, intent["id"], save_payment_method=number == SUCCEEDS,
                         token=localstripe.tokenize(pk, number, cvc=CVC)))
        keep(api.get(f"/v1/payment_intents/{intent['id']}"))
        keep(anonymous.post(f"/payment_intents/link/{intent['id']}", json={
            "key": merchant["test"]["public_key"], "client_secret": intent["client_secret"]}))
        if number == THREE_D_SECURE:  # finished on the payer's side: the webhook and the read-through both run
            secret = keep(api.get(f"/v1/payment_intents/{intent['id']}")).json()["data"]["charges"][0][
                "provider_a_payload"]["client_secret"]
            localstripe.authenticate(pk, secret.split("_secret_")[0], secret)
            answers.append(str(wait_for(api, intent["id"], lambda i: i["status"] == "Success")))
    methods = keep(api.get("/v1/customers/payment_methods", params={"customer_id": ann["id"]})).json()["data"]
    paid = new_intent(api, customer=ann["id"])
    keep(choose_card(api, paid["id"], payment_method_id=methods["payment_methods"][0]["id"]))
    [made] = keep(api.post("/v1/refunds", json={"payment_intent_id": paid["id"], "amount": "1"})).json()["data"][
        "refunds"]
    answers.append(str(refund_ends(api, made["id"])))  # provider_a asked after the answer: its refund is in the logs
    keep(api.get("/v1/events", params={"page_size": 100}))

    dump, files, logs, said = database_dump(service), database_files(service), service.log(), "\n".join(answers)
    for text in (dump, files):
        assert "provider_accounts" in text and ann["id"] in text and pk in text  # the dumps are real
    assert f"/webhooks/provider_a/{merchant['merchant_id']}" in logs  # the log is real: the webhook reached it
    for where, text in (("database", dump), ("database files", files), ("logs", logs), ("responses", said),
                        ("log text", log_text(logs))):
        for number in (SUCCEEDS, DECLINED, THREE_D_SECURE):
            assert number not in text, f"a card number in the {where}"
        assert sk not in text, f"the provider_a secret key in the {where}"
        assert whsec not in text, f"the provider_a webhook secret in the {where}"
        if where == "database files" and service.kind == "sqlite":
            continue  # binary pages: three digits or letters occur there by chance; the rows were checked above
        if where == "logs":
            continue  # its numbers (timings, counts) hold three digits by chance: its text is checked next
        assert not re.search(rf"(?<![0-9A-Za-z]){CVC}(?![0-9A-Za-z])", text), f"the CVC in the {where}"
        assert not re.search(r"(?<![0-9A-Za-z])cvc(?![0-9A-Za-z])", text, re.IGNORECASE), f"a CVC field in the {where}"
