"""The JSON-RPC client's parts that need no node: the URL split into endpoint and credentials, answers read as
results, refusals (RpcError) or "not now" (ChainUnavailable, NodeBusy), and exact amounts."""

from __future__ import annotations

import asyncio
import base64
from decimal import Decimal

import httpx
import pytest

from server.rails.base import ChainUnavailable
from server.rails.utxo.node import Endpoint, NodeBusy, NodeClient, RpcError
from server.rails.utxo.units import to_base, to_coins


def test_the_credentials_leave_the_url_for_basic_auth() -> None:
    endpoint = Endpoint.parse("http://user:p%40ss@127.0.0.1:19443")
    assert endpoint.url == "http://127.0.0.1:19443/" and endpoint.shown == endpoint.url
    assert endpoint.auth is not None
    sent = next(endpoint.auth.auth_flow(httpx.Request("POST", endpoint.url)))
    assert sent.headers["Authorization"] == "Basic " + base64.b64encode(b"user:p@ss").decode()


def test_a_wallet_is_a_path_with_its_name_quoted() -> None:
    assert Endpoint.parse("http://u:p@localhost:9332", wallet="pay er/1").url == \
        "http://localhost:9332/wallet/pay%20er%2F1"


def _answering(status: int, body: bytes) -> NodeClient:
    client = NodeClient("http://u:secret@127.0.0.1:1")
    client._client = httpx.AsyncClient(transport=httpx.MockTransport(lambda _: httpx.Response(status, content=body)))
    return client


async def _call(status: int, body: bytes) -> object:
    client = _answering(status, body)
    try:
        return await client.call("getblockcount")
    finally:
        await client.close()


def test_a_result_keeps_amounts_exact() -> None:
    assert asyncio.run(_call(200, b'{"result": 0.10000001, "error": null, "id": 0}')) == Decimal("0.10000001")


@pytest.mark.parametrize(("status", "body", "expected"), [
    (500, b'{"result": null, "error": {"code": -5, "message": "No such tx"}, "id": 0}', RpcError),
    (404, b'{"result": null, "error": {"code": -32601, "message": "Method not found"}, "id": 0}', RpcError),
    (500, b'{"result": null, "error": {"code": -28, "message": "Loading block index..."}, "id": 0}', NodeBusy),
    (500, b'{"result": null, "error": {"code": -8, "message": "Scan already in progress, use action abort"}}',
     NodeBusy),
    (401, b"", ChainUnavailable),
    (503, b"Work queue depth exceeded", ChainUnavailable),
    (200, b"<html>", ChainUnavailable),
    (200, b'{"jsonrpc": "2.0"}', ChainUnavailable),
])
def test_an_answer_is_a_refusal_or_not_now(status: int, body: bytes, expected: type[Exception]) -> None:
    with pytest.raises(expected) as raised:
        asyncio.run(_call(status, body))
    assert "secret" not in str(raised.value)
    if expected is RpcError:
        assert isinstance(raised.value, RpcError) and raised.value.code in (-5, -32601)


def test_amounts_convert_exactly_both_ways() -> None:
    assert to_base(Decimal("0.1"), 8) == 10_000_000
    assert to_base(Decimal("20999999.99999999"), 8) == 2_099_999_999_999_999
    assert to_base(50, 8) == 5_000_000_000
    assert to_coins(1, 8) == Decimal("0.00000001")


@pytest.mark.parametrize("value", [Decimal("0.000000001"), Decimal("-1"), Decimal("NaN"), "x", 0.1, True, None])
def test_an_amount_that_is_not_whole_base_units_is_an_inconsistent_answer(value: object) -> None:
    with pytest.raises(ChainUnavailable):
        to_base(value, 8)
