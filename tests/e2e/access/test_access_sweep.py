"""Object access sweep (DESIGN.md §2, §11, §14): every operation that takes an id, called on another merchant's
object and with the other mode's key, never answers with the object.

Merchant A owns the objects. For each id an operation takes (tests/e2e/access/slots.py), at any depth of the body
and inside its `request` string:
* merchant B's test key, with A's id in that place and B's own ids elsewhere: a path id is
  `404 <resource>_not_found`, a body id `400` (`parameter_invalid` / `invalid_payment_intent`; a nested one names its
  field), a query id 400/404 or, as a list's filter, an empty list;
* A's live key on A's test objects: 400, 403 or 404;
* checkout operations (public key + client secret): B's public key with A's intent's client secret is refused;
* then A's own test key succeeds past every id (so the refusals above came from scoping, not from a bad body).
The same calls run over HTTP (the facade) and over gRPC straight to the server (tests/e2e/access/wire.py).
A saved card (`pm_…`) is looked up only when paying by card: a call carrying a foreign one pays by card, and the
tests after the sweep try each mode's saved card on the other mode's intent and the owner's own on its customer's.
Operations that answer 501 are called the same way and must answer exactly `501 not_implemented` with nothing in
`data`; once implemented they join the sweep by themselves (and the coverage test asks for their kinds' factories).
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from paygate.v1 import options_pb2

from gateway_http.routes import Binding
from tests.e2e.access.parties import FACTORIES, Party
from tests.e2e.access.slots import PENDING_KINDS, PUBLIC_BY_DESIGN, Slot, slots, sweep_id, swept
from tests.e2e.access.wire import Answer, Wire
from tests.e2e.http.builders import selling_plan
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
    "CreateProduct": lambda p: {"name": "Tea", "default_currency": "USD"},
    # A new address per call: one address gets one code per 30 s.
    "SendVerificationCode": lambda p: {"email": f"sweep-{next(_EMAILS)}@example.com"},
    "GetCheckoutSession": lambda p: {"client_secret": p.obj("payment_intent")["client_secret"]},
    "PauseSubscription": lambda p: {"behavior": "void"},
    "ChangeSubscriptionPlan": lambda p: {"primary_variant": {"selling_plan_id": "sp_any"}},
    "PreviewSubscriptionChange": lambda p: {"primary_variant": {"selling_plan_id": "sp_any"}},
    "AdvanceSubscriptionTestClock": lambda p: {"to": int(time.time()) + 3600},
    "VerifyAddress": lambda p: {"amount": "0.0000001234"},
    "CreatePayout": lambda p: {"source_coin": "USDT-ETH-TEST", "source_amount": "1"},
    "PreviewPayout": lambda p: {"source_coin": "USDT-ETH-TEST", "source_amount": "1"},
    "UpdateAddress": lambda p: {"alias": "Cold wallet"},
    "CreateSellingPlanGroup": lambda p: {"name": "Subscribe and save"},
    "UpdateSellingPlanGroup": lambda p: {"name": "Renamed"},
    "CreateSellingPlan": lambda p: {"name": "Monthly", "billing_policy": {"interval": "month", "interval_count": "1"}},
    "UpdateSellingPlan": lambda p: {"name": "Renamed"},
}
# Fields that go beside a nested id in its message for the call to be valid (an add-on needs a quantity), by slot
# or by "<method>:<slot>".
BESIDE: dict[str, dict[str, Any]] = {
    "addons.variant_id": {"quantity": 1},
    "addon_variants.variant_id": {"max_quantity": 2},
    "variants.id": {"price": {"amount": "10.00"}},
    "UpdateProduct:variants.id": {"price": {"amount": "10.00"}, "option_values": {"Size": "XS"}},
    "selling_plans.id": selling_plan(),
}
_EMAILS = itertools.count()
# Ids an operation refuses whatever they name (their sweep still checks the refusal), left out of valid calls.
ALWAYS_REFUSED = {
    "UpdatePaymentLink": {"product_id", "default_variant_id", "primary_variant_ids",  # fixed at creation
                          "addon_variants.variant_id"},
    "CreateProduct": {"variants.id", "selling_plans.id"},  # ids are assigned by paygate
    "ChangeSubscriptionPlan": {"addons.variant_id"},  # a plan change keeps the subscription's add-ons
    "PreviewSubscriptionChange": {"addons.variant_id"},
}
# Operations whose owner's call may be refused for a reason other than its ids (checked: not for its ids).
_INCOMPLETE = "the sweep's subscription is incomplete (its first intent is unpaid): 409 for its status"
OWNER_MAY_BE_REFUSED = {
    **dict.fromkeys(["ApprovePayout", "RejectPayout"],
                    "the sweep calls with secret keys; only an approver key decides (403 approver_key_required, "
                    "after the payout is found): tests/e2e/treasury/test_payout_approval.py"),
    "CancelPayout": "the sweep's payout is written failed (no chain here): 409 payout_not_cancelable",
    "VerifyAddress": "the sweep's node is not running: the micro-deposit is never sent (409 verification_not_sent)",
    "DeletePaymentLink": "a new link is active, and an active link is not deleted (409 payment_link_active)",
    "ChangeSubscriptionPlan": "the sweep's subscription is unpaid (incomplete): 409 subscription_not_active",
    "PreviewSubscriptionChange": "the sweep's subscription is unpaid (incomplete): 409 subscription_not_active",
    **dict.fromkeys(["CancelSubscription", "RevokeSubscriptionCancel", "PauseSubscription", "ResumeSubscription",
                     "ChangeSubscriptionPlan", "PreviewSubscriptionChange"], _INCOMPLETE),
}
# Operations whose owner's call cannot succeed in this sweep, with the reason; their refusals are still checked.
NO_OWNER_BASELINE = {
    "CreatePayout": "a payout needs a verified address (a micro-deposit on chain) and funds: tests/e2e/treasury",
    "PreviewPayout": "a payout needs a verified address (a micro-deposit on chain): tests/e2e/treasury",
    "CreateRefund": "a refund needs a paid intent (a chain payment): the owner's unpaid intent is refused too",
    "CreateProduct": "its only ids (variants[].id, selling_plans[].id) are refused whoever names them",
    "StartCheckout": "a shopper's one-time code or token is needed (tests/e2e/checkout_page pays through it)",
}
UNKNOWN_ID = "0" * 24
# Fields a call needs for an id of that kind to be read at all: a saved card is looked up only to pay by card.
READ_WITH: dict[str, dict[str, Any]] = {"payment_method": {"payment_method_type": "cards"}}
NO_SUCH_CARD = "no such saved payment method"


def _pending(slot: Slot) -> bool:
    return slot.kind in PENDING_KINDS and slot.kind not in FACTORIES


def _value(party: Party, slot: Slot) -> Any:
    assert slot.kind is not None
    object_id = f"{slot.kind}_{UNKNOWN_ID}" if _pending(slot) else party.id(slot.kind)
    return [object_id] if slot.repeated else object_id


def _in_valid_call(b: Binding, slot: Slot) -> bool:
    """A valid call names each id once (in the body, not again in `request`), and no id of a kind not made yet."""
    return slot.where != "request" and not _pending(slot) and slot.name not in ALWAYS_REFUSED.get(b.method.name, ())


def _request(b: Binding, party: Party, foreign: tuple[Slot, Any] | None = None,
             ) -> tuple[dict[str, str], dict[str, Any]]:
    """Path values and body/query of a valid call for `party`; `foreign` puts another merchant's id in one slot."""
    path: dict[str, str] = {}
    payload: dict[str, Any] = json.loads(json.dumps(EXTRA.get(b.method.name, lambda p: {})(party)))
    inside: dict[str, Any] = {}
    # A place that takes two kinds (slots.SECOND_KINDS) holds one id: the foreign one, else the first kind's.
    taken = {(foreign[0].where, foreign[0].name)} if foreign is not None else set()
    for slot in slots(b):
        is_foreign = foreign is not None and foreign[0] == slot
        if not is_foreign and (not _in_valid_call(b, slot) or (slot.where, slot.name) in taken):
            continue
        taken.add((slot.where, slot.name))
        value = foreign[1] if foreign is not None and is_foreign else _value(party, slot)
        if slot.where == "path":
            path[slot.name] = value
        elif slot.where == "request":
            inside[slot.name] = value
        else:
            slot.put(payload, value)
            prefix = slot.name.rpartition(".")[0]
            extra = BESIDE.get(f"{b.method.name}:{slot.name}", BESIDE.get(slot.name, {}))
            for name, beside in extra.items():
                Slot(f"{prefix}.{name}", slot.where, None, lists=slot.lists).put(payload, beside)
    if inside:
        payload["request"] = json.dumps(inside)
    if foreign is not None:
        payload.update(READ_WITH.get(foreign[0].kind or "", {}))
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
               if s.kind not in FACTORIES and s.kind not in PENDING_KINDS]
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
        if public or _pending(slot):
            continue  # a pending kind's unknown id: no object to reach yet, only no server error
        if slot.where == "path":
            _refused(answer, (404,), (f"{slot.kind}_not_found",))
        elif slot.where in ("body", "request"):
            _refused(answer, (400,), ("parameter_invalid", "invalid_payment_intent"))
            if slot.nested:  # refused for that very field (or its whole list, where it can never be changed)
                fixed = slot.name in ALWAYS_REFUSED.get(b.method.name, ())
                assert answer.msg.startswith(slot.name.split(".")[0] if fixed else slot.error_field), answer
        elif answer.status == 200:
            _nothing_listed(answer)  # a list filtered by a foreign id lists nothing
        else:
            _refused(answer, (400, 404))

    path, payload = _request(b, owner)
    if not public and any(_in_valid_call(b, s) for s in slots(b)):  # a call naming none of its ids proves nothing
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
        assert not (own.status == 400 and own.msg.startswith(slot.name.split(".")[0])), own


def _unimplemented() -> list[Binding]:
    return [b for b in all_bindings() if not implemented(b) and slots(b)]


def _any_id(party: Party, slot: Slot) -> Any:
    """The party's id of the slot's kind, or a well-formed unknown one for a kind nothing makes yet."""
    assert slot.kind is not None
    object_id = party.id(slot.kind) if slot.kind in FACTORIES else f"{slot.kind}_{UNKNOWN_ID}"
    return [object_id] if slot.repeated else object_id


@pytest.mark.parametrize("b", _unimplemented(), ids=sweep_id)
def test_an_unimplemented_operation_that_takes_an_id_answers_501_and_nothing_else(
        b: Binding, owner: Party, stranger: Party, wire: Wire) -> None:
    """Until implemented, another merchant's ids and the other mode's key get `501 not_implemented` with an empty
    `data`, never the object; implementing the RPC moves it into the sweep above (swept() takes implemented RPCs)."""
    if wire.kind == "grpc" and b.index > 0:
        pytest.skip("gRPC has one method per RPC: its first binding covers it")
    calls = []
    for slot in slots(b):
        path: dict[str, str] = {}
        payload: dict[str, Any] = {}
        for other in slots(b):
            value = _any_id(owner if other == slot else stranger, other)
            if other.where == "path":
                path[other.name] = value
            elif other.where == "request":
                payload["request"] = json.dumps({other.name: value})
            else:
                other.put(payload, value)
        calls.append((_key(stranger), path, payload))
        calls.append((owner.merchant["live"]["secret_key"], path, payload))
    ids = {s.name.split(".")[0] for s in slots(b)}
    for key, path, payload in calls:
        answer = wire.call(key, b, path, payload)
        if answer.error_code == "parameter_missing":
            # The pipeline's required-field check comes first; it names a field that is not an id.
            assert answer.status == 400 and answer.data == {} and answer.msg.split(":")[0] not in ids, answer
            continue
        assert (answer.status, answer.error_code, answer.data) == (501, "not_implemented", {}), answer


def test_the_unimplemented_operations_are_known() -> None:
    # A guard against the 501 sweep walking nothing while subscriptions and the checkout link page are missing.
    assert {b.method.name for b in _unimplemented()} <= {
        "GetCheckoutLink", "SendVerificationCode", "ListSubscriptions", "GetSubscription", "CancelSubscription",
        "RevokeSubscriptionCancel", "PauseSubscription", "ResumeSubscription", "ChangeSubscriptionPlan",
        "PreviewSubscriptionChange", "AdvanceSubscriptionTestClock"}


def _key(party: Party) -> str:
    return str(party.merchant["test"]["secret_key"])


def test_the_owner_reads_its_intent_with_its_public_key_and_client_secret(owner: Party,
                                                                          anonymous: httpx.Client) -> None:
    # The checkout refusal above means something only if the owner's own public credentials work.
    intent = owner.obj("payment_intent")
    response = anonymous.post(f"/v1/payment_intents/link/{intent['id']}", json={
        "key": owner.merchant["test"]["public_key"], "client_secret": intent["client_secret"]})
    assert response.status_code == 200, response.text



def _takes_saved_cards() -> list[Binding]:
    return [b for b in swept() if any(s.kind == "payment_method" for s in slots(b))]


def _pay_with_saved_card(wire: Wire, key: str, b: Binding, intent: dict[str, Any], method_id: str) -> Answer:
    """`b` called by `key` on `intent` to pay it with the saved card `method_id`."""
    slot = next(s for s in slots(b) if s.kind == "payment_method")
    payload: dict[str, Any] = dict(READ_WITH["payment_method"])
    slot.put(payload, method_id)
    return wire.call(key, b, {"id": intent["id"]}, payload)


def _card_not_found(answer: Answer, b: Binding) -> None:
    slot = next(s for s in slots(b) if s.kind == "payment_method")
    _refused(answer, (400,), ("parameter_invalid",))
    assert answer.msg.startswith(slot.error_field) and NO_SUCH_CARD in answer.msg, answer


def test_the_sweep_covers_every_operation_that_takes_a_saved_card() -> None:
    assert {b.method.name for b in _takes_saved_cards()} == {"UpdatePaymentIntent", "UpdateCheckoutPaymentIntent"}


@pytest.mark.parametrize("b", _takes_saved_cards(), ids=sweep_id)
def test_another_merchants_saved_card_is_not_found_on_an_intent_of_a_customer(
        b: Binding, owner: Party, stranger: Party, wire: Wire) -> None:
    if wire.kind == "grpc" and b.index > 0:
        pytest.skip("gRPC has one method per RPC: its first binding covers it")
    _card_not_found(_pay_with_saved_card(wire, _key(stranger), b, stranger.obj("customer_payment_intent"),
                                         owner.id("payment_method")), b)


@pytest.mark.parametrize("b", _takes_saved_cards(), ids=sweep_id)
def test_a_saved_card_of_the_other_mode_is_not_found(b: Binding, owner: Party, wire: Wire) -> None:
    if wire.kind == "grpc" and b.index > 0:
        pytest.skip("gRPC has one method per RPC: its first binding covers it")
    _card_not_found(_pay_with_saved_card(wire, owner.merchant["live"]["secret_key"], b,
                                         owner.obj("live_customer_payment_intent"), owner.id("payment_method")), b)
    _card_not_found(_pay_with_saved_card(wire, _key(owner), b, owner.obj("customer_payment_intent"),
                                         owner.id("live_payment_method")), b)


@pytest.mark.parametrize("b", _takes_saved_cards(), ids=sweep_id)
def test_the_owners_saved_card_gets_past_the_look_up_on_its_customers_intent(
        b: Binding, owner: Party, wire: Wire) -> None:
    """The refusals above come from whose card it is: the owner's own card is found, and the call stops only at
    the card provider, which the sweep's merchant has no keys for (tests/e2e/cards charge saved cards)."""
    if wire.kind == "grpc" and b.index > 0:
        pytest.skip("gRPC has one method per RPC: its first binding covers it")
    answer = _pay_with_saved_card(wire, _key(owner), b, owner.obj("customer_payment_intent"),
                                  owner.id("payment_method"))
    _refused(answer, (400,), ("parameter_invalid",))
    assert NO_SUCH_CARD not in answer.msg and "no provider_a keys" in answer.msg, answer
