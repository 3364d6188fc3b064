"""Money sent as a JSON number (DESIGN §17): a client whose JSON library writes decimals as numbers
(`"amount": 9.50`) is understood when the number's literal text is a decimal amount, read from that text exactly
(never through a float); any other number, and any other type, stays `400 parameter_invalid` naming the field."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import fails, ok

PRODUCT_WITH_NUMBER = ('{"name": "T-shirt", "default_currency": "USD", '
                       '"options": [{"name": "Size", "values": [{"value": "M"}]}], '
                       '"variants": [{"option_values": {"Size": "M"}, "price": {"amount": %s}}]}')


def post_raw(api: httpx.Client, path: str, text: str) -> httpx.Response:
    return api.post(path, content=text.encode(), headers={"Content-Type": "application/json"})


def test_a_variant_price_sent_as_a_json_number_keeps_its_literal_digits(api: httpx.Client) -> None:
    product = ok(post_raw(api, "/v1/products", PRODUCT_WITH_NUMBER % "9.50"))

    assert product["variants"][0]["price"]["amount"] == "9.50"


def test_a_json_number_a_float_would_round_is_read_exactly(api: httpx.Client) -> None:
    product = ok(post_raw(api, "/v1/products", PRODUCT_WITH_NUMBER % "12345678901234567.89"))

    assert product["variants"][0]["price"]["amount"] == "12345678901234567.89"


def test_a_whole_json_number_is_a_whole_amount(api: httpx.Client) -> None:
    product = ok(post_raw(api, "/v1/products", PRODUCT_WITH_NUMBER % "15"))

    assert product["variants"][0]["price"]["amount"] == "15"


def test_an_update_takes_a_variant_price_as_a_json_number(api: httpx.Client) -> None:
    product = ok(post_raw(api, "/v1/products", PRODUCT_WITH_NUMBER % '"10.00"'))
    variant = product["variants"][0]["id"]

    updated = ok(post_raw(api, f"/v1/products/{product['id']}",
                          '{"variants": [{"id": "' + variant + '", "option_values": {"Size": "M"}, '
                          '"price": {"amount": 0.30}}]}'))

    assert updated["variants"][0]["price"]["amount"] == "0.30"
    assert ok(api.get(f"/v1/products/{product['id']}"))["variants"][0]["price"]["amount"] == "0.30"


@pytest.mark.parametrize("number", ["1e2", "1E2", "9.5e-1", "-1", "-0.5", "1" * 40, "1." + "5" * 40,
                                    "1" * 5000, "true", "false", "[]", "{}"])
def test_a_price_that_is_not_a_decimal_amount_is_parameter_invalid(api: httpx.Client, number: str) -> None:
    fails(post_raw(api, "/v1/products", PRODUCT_WITH_NUMBER % number), 400, "parameter_invalid",
          "variants[0].price.amount")
    assert ok(api.get("/v1/products", params={"page_size": 50}))["total"] == 0


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_tokens_are_refused(api: httpx.Client, token: str) -> None:
    fails(post_raw(api, "/v1/products", PRODUCT_WITH_NUMBER % token), 400, "parameter_invalid")
    assert ok(api.get("/v1/products", params={"page_size": 50}))["total"] == 0


def test_a_number_is_still_refused_where_no_money_is_expected(api: httpx.Client) -> None:
    fails(post_raw(api, "/v1/products", '{"name": 9.50, "default_currency": "USD", "fixed_price": {"amount": "1"}}'),
          400, "parameter_invalid", "name")


def test_a_variant_price_answers_its_asset_id(api: httpx.Client) -> None:
    product = ok(post_raw(api, "/v1/products", PRODUCT_WITH_NUMBER % '"9.50"'))

    assert product["variants"][0]["price"] == {"amount": "9.50", "currency": "USD", "asset_id": "USD"}
