"""wire/codec.py: JSON that parses but that no message can hold is a `CodecError` naming its place."""

from __future__ import annotations

import pytest
from paygate.v1 import customers_pb2, products_pb2

from wire import codec


def refusal(body: dict[str, object], message: object) -> codec.CodecError:
    with pytest.raises(codec.CodecError) as caught:
        codec.decode(body, message)  # type: ignore[arg-type]
    return caught.value


def test_a_lone_surrogate_in_a_string_field_is_refused_naming_the_field() -> None:
    error = refusal({"name": "Ann \ud800"}, customers_pb2.CreateCustomerRequest())
    assert (error.field, str(error)) == ("name", r"name: not valid text (a lone surrogate \ud800)")


def test_a_lone_surrogate_in_an_object_key_is_refused_naming_the_object() -> None:
    error = refusal({"metadata": {"a\udfff": "x"}}, customers_pb2.CreateCustomerRequest())
    assert str(error) == r"metadata: the key 'a\udfff' is not valid text (a lone surrogate \udfff)"


def test_a_lone_surrogate_in_a_top_level_key_is_refused_naming_the_body() -> None:
    error = refusal({"\ud800": "x"}, customers_pb2.CreateCustomerRequest())
    assert str(error) == r"body: the key '\ud800' is not valid text (a lone surrogate \ud800)"


def test_a_lone_surrogate_in_an_unknown_field_is_refused_too() -> None:
    error = refusal({"extra": ["\udc00"]}, customers_pb2.CreateCustomerRequest())
    assert str(error) == r"extra[0]: not valid text (a lone surrogate \udc00)"


def test_a_lone_surrogate_is_named_under_the_given_path_prefix() -> None:
    error = refusal({"variants": [{"option_values": {"Size": "\ud800"}}]}, products_pb2.CreateProductRequest())
    assert error.field == "variants[0].option_values.Size"
    with pytest.raises(codec.CodecError) as caught:
        codec.decode({"name": "\ud800"}, customers_pb2.CreateCustomerRequest(), "request.")
    assert caught.value.field == "request.name"


def test_a_surrogate_pair_decoded_by_json_is_ordinary_text() -> None:
    message = codec.decode({"name": "Ann \U0001f600"}, customers_pb2.CreateCustomerRequest())
    assert message.name == "Ann \U0001f600"  # type: ignore[attr-defined]


@pytest.mark.parametrize("number", [float("inf"), float("-inf"), float("nan"), 10**400, -(10**400)],
                         ids=["inf", "-inf", "nan", "huge-int", "huge-negative-int"])
def test_a_free_json_number_no_double_can_hold_is_refused_naming_its_place(number: object) -> None:
    error = refusal({"metadata": {"a": {"b": [1, number]}}}, customers_pb2.CreateCustomerRequest())
    assert str(error) == "metadata.a.b[1]: numbers must be finite and at most 1.7976931348623157e+308 in size"


def test_a_free_json_integer_at_the_largest_double_is_accepted() -> None:
    largest = int(1.7976931348623157e308)
    message = codec.decode({"metadata": {"a": largest}}, customers_pb2.CreateCustomerRequest())
    assert message.metadata["a"] == 1.7976931348623157e308  # type: ignore[attr-defined]
