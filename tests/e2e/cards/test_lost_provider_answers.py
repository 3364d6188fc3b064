"""A card confirmation whose answer is lost never loses the payment nor charges the card twice (DESIGN §9).

A proxy on loopback stands between paygate's provider_a client and localstripe and breaks the confirmation: either
it forwards it (localstripe charges the card) and answers 502, as a provider answering after our time-out would,
or it answers 502 without forwarding (the provider never saw it). The choice of cards runs in-process with
provider_a at the proxy (`choose_cards`); everything after it goes through the running service, which talks to
localstripe directly, so its read-through sees what localstripe did.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
from paygate.v1 import payment_intents_pb2 as pb

from server.cards.payments import LOST_CONFIRMATION, UNCONFIRMED, keyed_charge_id
from tests.conftest import ok
from tests.e2e.cards.support import SUCCEEDS, choose_card, chose_card, new_intent, poll, rows, wait_for
from tests.e2e.cards.test_charge_saved_card import renew
from tests.e2e.cards.test_provider_idempotency import choose_cards
from tests.harness import Service
from tests.localstripe import LocalStripe

Breaks = Callable[[str, str], str]  # (method, path) → "pass", "answer lost" or "never sent"
Seen = list[tuple[str, str, str, dict[str, list[str]]]]  # (method, path, Idempotency-Key, form body)


def _on_confirm(mode: str) -> Breaks:
    return lambda method, path: mode if method == "POST" and path.endswith("/confirm") else "pass"


def _on_off_session_create(method: str, path: str) -> str:
    return "answer lost" if method == "POST" and path == "/v1/payment_intents" else "pass"


@pytest.fixture
def breaking_proxy(localstripe: LocalStripe) -> Iterator[tuple[str, list[Breaks], Seen]]:
    """(url, [what to break], requests seen): the first element of the list decides, and may be swapped."""
    breaks: list[Breaks] = [lambda method, path: "pass"]
    seen: Seen = []

    class Forward(BaseHTTPRequestHandler):
        def _forward(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path = self.path.split("?")[0]
            seen.append((self.command, path, self.headers.get("Idempotency-Key") or "",
                         parse_qs(body.decode())))
            mode = breaks[0](self.command, path)
            if mode != "never sent":
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                answer = httpx.request(self.command, f"{localstripe.url}{self.path}", content=body,
                                       headers=headers, timeout=20)
                status, content = answer.status_code, answer.content
            if mode != "pass":
                status, content = 502, json.dumps({"error": {"type": "api_error", "message": "bad gateway"}}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        do_GET = do_POST = do_DELETE = _forward

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", breaks, seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _at_provider(localstripe: LocalStripe, merchant: dict[str, Any], intent_id: str) -> list[tuple[str, str]]:
    """(status, amount) of every provider PaymentIntent made for our intent."""
    # localstripe lists oldest first and knows no maximum page size: one page holds every payment of the session.
    listed = localstripe.get("/v1/payment_intents?limit=1000000", merchant["provider_a"]["secret_key"])["data"]
    return [(p["status"], p["amount"]) for p in listed if p["metadata"].get("paygate_payment_intent_id") == intent_id]


def _token(localstripe: LocalStripe, merchant: dict[str, Any]) -> str:
    return localstripe.tokenize(merchant["provider_a"]["publishable_key"], SUCCEEDS)


def _confirm_through(service: Service, merchant: dict[str, Any], localstripe: LocalStripe, proxy: str,
                     intent_id: str) -> tuple[str, list[tuple[str, str]]]:
    return choose_cards(service, merchant, intent_id, proxy,
                        pb.FiatPaymentInput(currency="USD", token=_token(localstripe, merchant)))


def test_a_lost_confirmation_answer_keeps_the_charge_and_the_intent_processing(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        breaking_proxy: tuple[str, list[Breaks], Seen]) -> None:
    proxy, breaks, _ = breaking_proxy
    breaks[0] = _on_confirm("answer lost")
    intent = new_intent(api)
    status, [(charge_id, charge_status)] = _confirm_through(service, merchant, localstripe, proxy, intent["id"])
    assert (status, charge_status) == ("Processing", "Pending")
    [row] = rows(service, "select provider_status, provider_payment_id from charges where id = :c", c=charge_id)
    assert row["provider_status"] == UNCONFIRMED and row["provider_payment_id"]
    assert _at_provider(localstripe, merchant, intent["id"]) == [("succeeded", 1050)]


def test_the_read_through_records_the_payment_whose_answer_was_lost(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        breaking_proxy: tuple[str, list[Breaks], Seen]) -> None:
    proxy, breaks, _ = breaking_proxy
    breaks[0] = _on_confirm("answer lost")
    intent = new_intent(api)
    _confirm_through(service, merchant, localstripe, proxy, intent["id"])
    paid = wait_for(api, intent["id"], lambda i: i["status"] == "Success")
    assert paid["payment_details"]["amount_captured"] == {"asset_id": "USD", "amount": "10.5"}
    assert [c["status"] for c in paid["charges"]] == ["Success"]


def test_a_retry_while_the_answer_is_lost_charges_the_card_no_second_time(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        breaking_proxy: tuple[str, list[Breaks], Seen]) -> None:
    proxy, breaks, _ = breaking_proxy
    breaks[0] = _on_confirm("answer lost")
    intent = new_intent(api)
    _confirm_through(service, merchant, localstripe, proxy, intent["id"])
    again = choose_card(api, intent["id"], token=_token(localstripe, merchant))
    assert again.status_code == 409
    assert again.json()["error_code"] == "payment_intent_unexpected_state"
    assert _at_provider(localstripe, merchant, intent["id"]) == [("succeeded", 1050)]
    assert len(rows(service, "select id from charges where payment_intent_id = :i", i=intent["id"])) == 1


def test_a_confirmation_the_provider_never_received_is_canceled_there_and_the_attempt_fails(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        breaking_proxy: tuple[str, list[Breaks], Seen]) -> None:
    proxy, breaks, _ = breaking_proxy
    breaks[0] = _on_confirm("never sent")
    intent = new_intent(api)
    status, _ = _confirm_through(service, merchant, localstripe, proxy, intent["id"])
    assert status == "Processing"
    failed = wait_for(api, intent["id"], lambda i: i["status"] == "RequiresPaymentMethod")
    [charge] = failed["charges"]
    assert (charge["status"], charge["failure_code"]) == ("Failed", LOST_CONFIRMATION[0])
    assert [s for s, _ in _at_provider(localstripe, merchant, intent["id"])] == ["canceled"]


def test_a_confirmation_that_never_arrived_is_settled_even_if_nobody_reads_the_intent(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        breaking_proxy: tuple[str, list[Breaks], Seen]) -> None:
    proxy, breaks, _ = breaking_proxy
    breaks[0] = _on_confirm("never sent")
    intent = new_intent(api)
    _, [(charge_id, _)] = _confirm_through(service, merchant, localstripe, proxy, intent["id"])

    def stored() -> dict[str, Any]:  # the database, not the API: a read through the API would ask the provider
        [charge] = rows(service, "select status, failure_code from charges where id = :c", c=charge_id)
        [paying] = rows(service, "select status from payment_intents where id = :i", i=intent["id"])
        return {"charge": (charge["status"], charge["failure_code"]), "intent": paying["status"]}

    assert poll(stored, lambda seen: seen["intent"] != "Processing") == {
        "charge": ("Failed", LOST_CONFIRMATION[0]), "intent": "RequiresPaymentMethod"}


def test_after_a_confirmation_that_never_arrived_the_payer_pays_once(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        breaking_proxy: tuple[str, list[Breaks], Seen]) -> None:
    proxy, breaks, _ = breaking_proxy
    breaks[0] = _on_confirm("never sent")
    intent = new_intent(api)
    _confirm_through(service, merchant, localstripe, proxy, intent["id"])
    wait_for(api, intent["id"], lambda i: i["status"] == "RequiresPaymentMethod")
    paid = chose_card(api, intent["id"], token=_token(localstripe, merchant))
    assert paid["status"] == "Success"
    assert sorted(_at_provider(localstripe, merchant, intent["id"])) == [("canceled", 1050), ("succeeded", 1050)]


def test_an_off_session_charge_retried_after_a_lost_answer_asks_the_same_question_under_the_same_key(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        breaking_proxy: tuple[str, list[Breaks], Seen]) -> None:
    # localstripe ignores idempotency keys; the provider's contract is that the same key with the same request
    # answers the first attempt's payment, so what is checked here is that the retry is that same request.
    proxy, breaks, seen = breaking_proxy
    ann = ok(api.post("/v1/customers", json={"name": "Ann", "email": "ann@example.com"}))
    first = new_intent(api, customer=ann["id"])
    chose_card(api, first["id"], save_payment_method=True, token=_token(localstripe, merchant))
    [pm] = ok(api.get("/v1/customers/payment_methods", params={"customer_id": ann["id"]}))["payment_methods"]
    renewal = new_intent(api, amount="7", customer=ann["id"])
    breaks[0] = _on_off_session_create
    for _ in range(2):
        with pytest.raises(Exception, match="try again"):
            renew(service, renewal["id"], pm["id"], "inv_1-attempt-1", api_base=proxy)
    creates = [(key, form) for method, path, key, form in seen if (method, path) == ("POST", "/v1/payment_intents")]
    assert len(creates) >= 2 and all(c == creates[0] for c in creates)
    assert creates[0][0] == "inv_1-attempt-1"
    assert creates[0][1]["metadata[paygate_charge_id]"] == [keyed_charge_id(renewal["id"], "inv_1-attempt-1")]
