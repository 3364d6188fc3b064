"""Object access sweep (DESIGN.md §2, §11, §14): every operation that takes an id, called on another merchant's
object and with the other mode's key, never answers with the object.

Merchant A owns the objects. For each id an operation takes (tests/e2e/access/slots.py):
* merchant B's test key, with A's id in that place and B's own ids elsewhere: a path id is
  `404 <resource>_not_found`, a body id `400` (`parameter_invalid` / `invalid_payment_intent`), a query id 400/404
  or, as a list's filter, an empty list;
* A's live key on A's test objects: 400, 403 or 404;
* checkout operations (public key + client secret): B's public key with A's intent's client secret is refused;
* then A's own test key succeeds past every id (so the refusals above came from scoping, not from a bad body).
The same calls run over HTTP (the facade) and over gRPC straight to the server (tests/e2e/access/wire.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from paygate.v1 import options_pb2

from gateway_http.routes import Binding
from tests.e2e.access.parties import FACTORIES, Party
from tests.e2e.access.slots import PUBLIC_BY_DESIGN, Slot, slots, sweep_id, swept
from tests.e2e.access.wire import Answer, Wire
from tests.harness import Service
from tests.operations import all_bindings, implemented

USDT = "USDT-ETH-TEST"
PAY_CRYPTO = {"payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": USDT}}}
# Fields an operation needs besides its ids for the owner's call to get past them.
EXTRA: dict[str, Callable[[Party], dict[str, Any]]] = {
    "ResolveIdentity": lambda p: {"ephemeral_token": p.id("ephemeral_token")},
    "UpdatePaymentIntent": lambda p: PAY_CRYPTO,
    "UpdateCheckoutPaymentIntent": lambda p: PAY_CRYPTO,
    "CreateRefund": lambda p: {"amount": "1"},
    "UpdateCustomer": lambda p: {"name": "Renamed"},
    "UpdateProduct": lambda p: {"name": "Renamed"},
    "UpdateWebhookEndpoint": lambda p: {"description": "renamed"},
    "UpdatePaymentLink": lambda p: {"active": True},
}
# Ids an operation refuses whatever they name (their sweep still checks the refusal), left out of valid calls.
ALWAYS_REFUSED = {
    "UpdatePaymentLink": {"product_id", "default_variant_id", "primary_variant_ids"},  # fixed at creation
}
# Operations whose owner's call may be refused for a reason other than its ids (checked: not for its ids).
OWNER_MAY_BE_REFUSED = {
    "DeletePaymentLink": "a new link is active, and an active link is not deleted (409 payment_link_active)",
}
# Operations whose owner's call cannot succeed in this sweep, with the reason; their refusals are still checked.
NO_OWNER_BASELINE = {
    "CreateRefund": "a refund needs a paid intent (a chain payment): the owner's unpaid intent is refused too",
}


def _value(party: Party, slot: Slot) -> Any:
    assert slot.kind is not None
    object_id = party.id(slot.kind)
    return [object_id] if slot.repeated else object_id


def _request(b: Binding, party: Party, foreign: tuple[Slot, Any] | None = None,
             ) -> tuple[dict[str, str], dict[str, Any]]:
    """Path values and body/query of a valid call for `party`; `foreign` puts another merchant's id in one slot."""
    path: dict[str, str] = {}
    payload: dict[str, Any] = dict(EXTRA.get(b.method.name, lambda p: {})(party))
    for slot in slots(b):
        is_foreign = foreign is not None and foreign[0] == slot
        if slot.name in ALWAYS_REFUSED.get(b.method.name, ()) and not is_foreign:
            continue
        value = foreign[1] if foreign is not None and is_foreign else _value(party, slot)
        if slot.where == "path":
            path[slot.name] = value
        else:
            payload[slot.name] = value
    return path, payload


def _refused(answer: Answer, statuses: tuple[int, ...], codes: tuple[str, ...] | None = None) -> None:
    assert answer.status in statuses, (answer.where, answer)
    assert answer.data == {}, answer
    if codes is not None:
        assert answer.error_code in codes, answer


def _nothing_listed(answer: Answer) -> None:
    data = answer.data
    assert isinstance(data, dict) and all(v == [] for v in data.values() if isinstance(v, list)), answer
    assert any(isinstance(v, list) for v in data.values()), answer


@pytest.fixture(params=["http", "grpc"])
def wire(request: pytest.FixtureRequest, service: Service) -> Iterator[Wire]:
    w = Wire(request.param, service)
    yield w
    w.close()


@pytest.fixture
def owner(service: Service, merchant: dict[str, Any]) -> Iterator[Party]:
    party = Party.of(service, merchant)
    yield party
    party.close()


@pytest.fixture
def stranger(service: Service, other_merchant: dict[str, Any]) -> Iterator[Party]:
    party = Party.of(service, other_merchant)
    yield party
    party.close()


def test_every_operation_that_takes_an_id_has_a_factory_for_it() -> None:
    """A new RPC taking an id must come with a way to make that kind of id, or this fails."""
    missing = [f"{sweep_id(b)} {s.where} {s.name!r} → kind {s.kind!r}" for b in swept() for s in slots(b)
               if s.kind not in FACTORIES]
    assert missing == [], "add a factory to tests/e2e/access/parties.py (or classify the field in slots.py)"


def test_the_sweep_covers_the_known_id_operations() -> None:
    # A guard against the discovery walking nothing: these must all be found.
    found = {b.method.name for b in swept()}
    assert found >= {"GetCustomer", "DeleteCustomer", "GetPaymentIntent", "CancelPaymentIntent",
                     "GetCheckoutPaymentIntent", "CreatePaymentLink", "GetRefund", "CreateRefund", "GetEvent",
                     "ResendEvent", "RotateWebhookEndpointSecret", "ListPaymentMethods", "ResolveIdentity"}
    unimplemented = {b.method.name for b in all_bindings() if not implemented(b)}
    assert not found & unimplemented


@pytest.mark.parametrize("b", swept(), ids=sweep_id)
def test_another_merchants_ids_and_the_other_modes_key_never_reach_the_object(
        b: Binding, owner: Party, stranger: Party, wire: Wire) -> None:
    if wire.kind == "grpc" and b.index > 0:
        pytest.skip("gRPC has one method per RPC: its first binding covers it")
    public = b.method.name in PUBLIC_BY_DESIGN
    for slot in slots(b):
        path, payload = _request(b, stranger, (slot, _value(owner, slot)))
        answer = wire.call(_key(stranger), b, path, payload)
        assert answer.status < 500, answer
        if public:
            continue
        if slot.where == "path":
            _refused(answer, (404,), (f"{slot.kind}_not_found",))
        elif slot.where == "body":
            _refused(answer, (400,), ("parameter_invalid", "invalid_payment_intent"))
        elif answer.status == 200:
            _nothing_listed(answer)  # a list filtered by a foreign id lists nothing
        else:
            _refused(answer, (400, 404))

    path, payload = _request(b, owner)
    if not public:
        live = wire.call(owner.merchant["live"]["secret_key"], b, path, payload)
        if live.status == 200 and all(s.where == "query" for s in slots(b)):
            _nothing_listed(live)
        else:
            _refused(live, (400, 403, 404))

    if b.auth == options_pb2.AUTH_POLICY_SECRET_OR_CLIENT_SECRET:
        # The hosted checkout's credentials: the stranger's public key with the owner's intent's client secret.
        borrowed = {**payload, "key": stranger.merchant["test"]["public_key"],
                    "client_secret": owner.obj("payment_intent")["client_secret"]}
        _refused(wire.call(None, b, path, borrowed), (400, 401, 404))

    if b.method.name in NO_OWNER_BASELINE:
        return
    own = wire.call(_key(owner), b, path, payload)
    assert own.status == 200 or (b.method.name in OWNER_MAY_BE_REFUSED and own.status < 500), own
    for slot in slots(b):
        assert not (own.status == 404 and own.error_code == f"{slot.kind}_not_found"), own
        assert not (own.status == 400 and own.msg.startswith(slot.name)), own


def _key(party: Party) -> str:
    return str(party.merchant["test"]["secret_key"])


def test_the_owner_reads_its_intent_with_its_public_key_and_client_secret(owner: Party,
                                                                          anonymous: httpx.Client) -> None:
    # The checkout refusal above means something only if the owner's own public credentials work.
    intent = owner.obj("payment_intent")
    response = anonymous.post(f"/v1/payment_intents/link/{intent['id']}", json={
        "key": owner.merchant["test"]["public_key"], "client_secret": intent["client_secret"]})
    assert response.status_code == 200, response.text

