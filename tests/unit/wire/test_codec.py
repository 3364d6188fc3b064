"""wire/codec.py: protobuf ↔ the spec's JSON (DESIGN.md §2)."""

from __future__ import annotations

from decimal import Decimal

import pytest
import simplejson
from paygate.v1 import (
    customers_pb2,
    payment_intents_pb2,
    payment_links_pb2,
    products_pb2,
    subscriptions_pb2,
)
from paygate.v1.money_pb2 import Price

from gateway_http import envelope
from wire import codec

# ---------------------------------------------------------------- encoding


def test_int64_is_encoded_as_a_json_integer_not_a_string():
    out = codec.encode(customers_pb2.Customer(created=1_700_000_000, updated=2**62))
    assert out["created"] == 1_700_000_000 and type(out["created"]) is int
    assert b'"updated":4611686018427387904' in envelope.dumps(out)


def test_int64_response_total_is_a_json_integer():
    out = codec.encode(products_pb2.ListProductsResponse(total=3))
    assert out["total"] == 3 and type(out["total"]) is int


def test_enum_is_encoded_as_its_wire_value():
    plan = products_pb2.SellingPlan(billing_cycle=products_pb2.BILLING_CYCLE_MONTH)
    assert codec.encode(plan)["billing_cycle"] == "month"


def test_enum_wire_value_keeps_the_spec_spelling():
    intent = payment_intents_pb2.PaymentIntent(
        status=payment_intents_pb2.PAYMENT_INTENT_STATUS_REQUIRES_PAYMENT_METHOD)
    assert codec.encode(intent)["status"] == "RequiresPaymentMethod"


def test_unspecified_enum_is_encoded_as_empty_string():
    assert codec.encode(products_pb2.SellingPlan())["billing_cycle"] == ""


def test_unset_optional_scalar_is_null():
    assert codec.encode(products_pb2.Variant())["inventory_quantity"] is None


def test_optional_scalar_set_to_zero_is_zero_not_null():
    assert codec.encode(products_pb2.Variant(inventory_quantity=0))["inventory_quantity"] == 0


def test_unset_optional_int64_of_a_subscription_is_null():
    out = codec.encode(subscriptions_pb2.Subscription())
    for name in ("canceled_at", "cancel_reason", "paused_at", "pause_collection_behavior", "resumes_at",
                 "payment_url", "payment_expires_at"):
        assert out[name] is None, name


def test_unset_message_field_is_null():
    assert codec.encode(products_pb2.Product())["fixed_price"] is None


def test_set_message_field_is_an_object():
    out = codec.encode(products_pb2.Product(fixed_price=Price(amount="9.99", currency="USD")))
    assert out["fixed_price"] == {"amount": "9.99", "currency": "USD"}


def test_unset_payment_link_details_is_null():
    assert codec.encode(payment_intents_pb2.PaymentIntent())["payment_link_details"] is None


def test_empty_repeated_field_is_an_empty_array():
    out = codec.encode(products_pb2.Product())
    assert out["variants"] == [] and out["options"] == [] and out["selling_plans"] == []


def test_unset_struct_metadata_is_an_empty_object():
    assert codec.encode(customers_pb2.Customer())["metadata"] == {}


def test_field_names_are_snake_case_in_field_order():
    names = list(codec.encode(customers_pb2.Customer()))
    assert names[:4] == ["id", "object", "name", "email"]
    assert "total_expense" in names and "totalExpense" not in names


def test_json_number_field_keeps_every_digit():
    customer = customers_pb2.Customer(total_payment="12345678901234567890.12")
    assert b'"total_payment":12345678901234567890.12' in envelope.dumps(codec.encode(customer))


def test_json_number_field_is_a_number_not_a_string():
    customer = customers_pb2.Customer(total_refund="1.50")
    parsed = simplejson.loads(envelope.dumps(codec.encode(customer)), use_decimal=True)
    assert parsed["total_refund"] == Decimal("1.50")


def test_unset_json_number_field_is_zero():
    assert b'"total_expense":0' in envelope.dumps(codec.encode(customers_pb2.Customer()))


def test_struct_whole_number_is_encoded_as_integer():
    customer = customers_pb2.Customer()
    customer.metadata.update({"count": 3, "ratio": 1.5, "nested": {"n": 2}, "items": [1, 2.5]})
    metadata = codec.encode(customer)["metadata"]
    assert metadata == {"count": 3, "ratio": 1.5, "nested": {"n": 2}, "items": [1, 2.5]}
    assert type(metadata["count"]) is int and type(metadata["nested"]["n"]) is int
    assert type(metadata["items"][0]) is int


def test_struct_keys_are_sorted_so_encoding_is_stable():
    customer = customers_pb2.Customer()
    customer.metadata.update({"b": "2", "a": "1", "c": "3"})
    assert list(codec.encode(customer)["metadata"]) == ["a", "b", "c"]


def test_map_field_is_encoded_as_an_object():
    variant = products_pb2.Variant(option_values={"Size": "L"})
    assert codec.encode(variant)["option_values"] == {"Size": "L"}


def test_encode_field_selects_the_response_body():
    response = customers_pb2.CreateCustomerResponse(customer=customers_pb2.Customer(id="cus_1"))
    assert codec.encode_field(response, "customer")["id"] == "cus_1"


# ---------------------------------------------------------------- decoding


def test_decode_fills_scalars_and_messages():
    message = codec.decode({"name": "Hat", "default_currency": "USD", "fixed_price": {"amount": "5"}},
                           products_pb2.CreateProductRequest())
    assert message.name == "Hat" and message.fixed_price.amount == "5"


def test_decode_null_means_not_given():
    message = codec.decode({"name": None, "email": "a@b.co"}, customers_pb2.CreateCustomerRequest())
    assert not message.HasField("name") and message.email == "a@b.co"


def test_decode_null_message_means_not_given():
    message = codec.decode({"fixed_price": None}, products_pb2.CreateProductRequest())
    assert not message.HasField("fixed_price")


def test_decode_empty_object_message_counts_as_given():
    message = codec.decode({"fixed_price": {}}, products_pb2.CreateProductRequest())
    assert message.HasField("fixed_price")


def test_decode_ignores_unknown_fields():
    message = codec.decode({"name": "Ann", "unknown_extra": 1}, customers_pb2.CreateCustomerRequest())
    assert message.name == "Ann"


def test_decode_wrong_type_names_the_field():
    with pytest.raises(codec.CodecError, match=r"^name: must be a string"):
        codec.decode({"name": 5}, customers_pb2.CreateCustomerRequest())


def test_decode_error_names_the_nested_field_path():
    body = {"variants": [{"price": {"amount": "1"}}, {"price": {"amount": True}}]}
    with pytest.raises(codec.CodecError) as caught:
        codec.decode(body, products_pb2.CreateProductRequest())
    assert caught.value.field == "variants[1].price.amount"
    assert str(caught.value).startswith("variants[1].price.amount:")


def test_decode_error_names_the_map_entry():
    with pytest.raises(codec.CodecError, match=r"^variants\[0\]\.option_values\.Size:"):
        codec.decode({"variants": [{"option_values": {"Size": 3}}]}, products_pb2.CreateProductRequest())


def test_decode_null_inside_an_array_is_refused_with_its_index():
    with pytest.raises(codec.CodecError, match=r"^primary_variant_ids\[1\]:"):
        codec.decode({"primary_variant_ids": ["var_a", None]}, payment_links_pb2.CreatePaymentLinkRequest())


def test_decode_scalar_where_array_expected_is_refused():
    with pytest.raises(codec.CodecError, match=r"^primary_variant_ids: must be an array"):
        codec.decode({"primary_variant_ids": "var_a"}, payment_links_pb2.CreatePaymentLinkRequest())


def test_decode_bool_field_refuses_a_string():
    with pytest.raises(codec.CodecError, match=r"^active: must be true or false"):
        codec.decode({"active": "true"}, products_pb2.CreateProductRequest())


def test_decode_integer_field_accepts_a_whole_float_and_a_digit_string():
    message = codec.decode({"page": 2.0, "page_size": "20"}, customers_pb2.ListCustomersRequest())
    assert message.page == 2 and message.page_size == 20


def test_decode_integer_field_refuses_a_fraction():
    with pytest.raises(codec.CodecError, match=r"^page: must be an integer"):
        codec.decode({"page": 1.5}, customers_pb2.ListCustomersRequest())


def test_decode_integer_field_refuses_a_bool():
    with pytest.raises(codec.CodecError, match=r"^page: must be an integer"):
        codec.decode({"page": True}, customers_pb2.ListCustomersRequest())


def test_decode_int32_out_of_range_is_refused():
    with pytest.raises(codec.CodecError, match=r"^page_size: must be from"):
        codec.decode({"page_size": 2**31}, customers_pb2.ListCustomersRequest())


def test_decode_enum_wire_value():
    message = codec.decode({"billing_cycle": "year"}, products_pb2.SellingPlan())
    assert message.billing_cycle == products_pb2.BILLING_CYCLE_YEAR


def test_decode_unknown_enum_value_lists_the_allowed_ones():
    with pytest.raises(codec.CodecError, match=r"^billing_cycle: must be one of day, week, month, year"):
        codec.decode({"billing_cycle": "fortnight"}, products_pb2.SellingPlan())


def test_decode_struct_metadata():
    message = codec.decode({"metadata": {"order": "A1", "n": 2}}, customers_pb2.CreateCustomerRequest())
    assert message.metadata["order"] == "A1" and message.metadata["n"] == 2


def test_decode_struct_refuses_a_non_object():
    with pytest.raises(codec.CodecError, match=r"^metadata: must be an object"):
        codec.decode({"metadata": [1, 2]}, customers_pb2.CreateCustomerRequest())


def test_decode_then_encode_round_trips_a_product():
    body = {"name": "Hat", "default_currency": "USD", "variants": [{"option_values": {"Size": "L"},
                                                                    "price": {"amount": "5", "currency": "USD"}}]}
    message = codec.decode(body, products_pb2.CreateProductRequest())
    out = codec.encode(message)
    assert out["variants"][0]["option_values"] == {"Size": "L"}
    assert out["variants"][0]["price"] == {"amount": "5", "currency": "USD", "asset_id": ""}


# ---------------------------------------------------------------- query strings


@pytest.mark.parametrize(("text", "expected"), [("true", True), ("1", True), ("TRUE", True),
                                                 ("false", False), ("0", False)])
def test_query_bool_spellings(text, expected):
    message = codec.decode_query([("active", text)], products_pb2.ListProductsRequest())
    assert message.HasField("active") and message.active is expected


def test_query_bool_refuses_other_text():
    with pytest.raises(codec.CodecError, match=r"^active: must be true or false"):
        codec.decode_query([("active", "maybe")], products_pb2.ListProductsRequest())


def test_query_integers():
    message = codec.decode_query([("page", "3"), ("page_size", "25")], customers_pb2.ListCustomersRequest())
    assert message.page == 3 and message.page_size == 25


def test_query_integer_refuses_text_naming_the_parameter():
    with pytest.raises(codec.CodecError, match=r"^page_size: must be an integer"):
        codec.decode_query([("page_size", "ten")], customers_pb2.ListCustomersRequest())


def test_query_absent_optional_integer_stays_unset():
    message = codec.decode_query([("email", "a@b.co")], customers_pb2.ListCustomersRequest())
    assert not message.HasField("page") and not message.HasField("page_size")


def test_query_repeated_parameter_fills_a_list():
    message = codec.decode_query([("expand", "invoice"), ("expand", "subscription")],
                                 payment_intents_pb2.ListPaymentIntentsRequest())
    assert list(message.expand) == ["invoice", "subscription"]


def test_query_comma_separated_list_fills_a_list():
    message = codec.decode_query([("expand", "invoice,subscription")], payment_intents_pb2.ListPaymentIntentsRequest())
    assert list(message.expand) == ["invoice", "subscription"]


def test_query_unknown_parameter_is_ignored():
    message = codec.decode_query([("nonsense", "1"), ("email", "x@y.co")], customers_pb2.ListCustomersRequest())
    assert message.email == "x@y.co"


def test_query_last_value_of_a_scalar_wins():
    message = codec.decode_query([("page", "1"), ("page", "4")], customers_pb2.ListCustomersRequest())
    assert message.page == 4
