"""No card number, CVC or provider_a secret key in the database, a log line or a response (DESIGN §9, §14)."""

from __future__ import annotations

import re
from typing import Any

import httpx
import sqlalchemy as sa

from tests.e2e.cards.support import DECLINED, SUCCEEDS, THREE_D_SECURE, choose_card, new_intent
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


def test_no_card_number_cvc_or_provider_secret_key_is_stored_logged_or_answered(
        service: Service, api: httpx.Client, anonymous: httpx.Client, merchant: dict[str, Any],
        localstripe: LocalStripe) -> None:
    pk, sk = merchant["provider_a"]["publishable_key"], merchant["provider_a"]["secret_key"]
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
    methods = keep(api.get("/v1/customers/payment_methods", params={"customer_id": ann["id"]})).json()["data"]
    paid = new_intent(api, customer=ann["id"])
    keep(choose_card(api, paid["id"], payment_method_id=methods["payment_methods"][0]["id"]))
    keep(api.post("/v1/refunds", json={"payment_intent_id": paid["id"], "amount": "1"}))
    keep(api.get("/v1/events", params={"page_size": 100}))

    dump, logs, said = database_dump(service), service.log(), "\n".join(answers)
    assert "provider_accounts" in dump and ann["id"] in dump  # the dump is real
    for where, text in (("database", dump), ("logs", logs), ("responses", said)):
        for number in (SUCCEEDS, DECLINED, THREE_D_SECURE):
            assert number not in text, f"a card number in the {where}"
        assert sk not in text, f"the provider_a secret key in the {where}"
        assert not re.search(rf"(?<![0-9A-Za-z]){CVC}(?![0-9A-Za-z])", text), f"the CVC in the {where}"
        assert not re.search(r"(?<![0-9A-Za-z])cvc(?![0-9A-Za-z])", text, re.IGNORECASE), f"a CVC field in the {where}"
