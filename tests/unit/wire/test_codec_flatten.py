"""A message field marked `flatten` shows its fields at the top of the enclosing object (DESIGN §17)."""

from __future__ import annotations

from paygate.v1 import payment_intents_pb2 as pb

from wire.codec import encode


def test_a_flattened_field_puts_its_fields_beside_the_enclosing_ones() -> None:
    intent = pb.PaymentIntent(id="pi_1", object="payment_intent")
    out = encode(pb.UpdatePaymentIntentResponse(payment_intents=[intent], total=1, page_size=1,
                                                payment_intent=intent))
    assert (out["id"], out["object"], out["total"], out["page_size"]) == ("pi_1", "payment_intent", 1, 1)
    assert out["payment_intents"][0]["id"] == "pi_1" and "payment_intent" not in out


def test_an_unset_flattened_field_adds_nothing() -> None:
    assert encode(pb.CancelPaymentIntentResponse()) == {}
