"""The JSON-RPC client, the probe and the scanner's check against a real node: answers, refusals, no answer."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from urllib.parse import urlsplit

import pytest

from server.rails.base import ChainUnavailable
from server.rails.utxo import probe
from server.rails.utxo.node import RPC_INVALID_ADDRESS_OR_KEY, RPC_METHOD_NOT_FOUND, NodeClient, RpcError
from server.rails.utxo.scanner import UtxoScanner
from tests.harness import free_port
from tests.litecoin import Litecoin, run


def test_a_call_answers_amounts_as_exact_decimals(litecoin: Litecoin) -> None:
    async def scenario() -> None:
        async with litecoin.client() as client:
            block = await client.call("getblock", await client.call("getblockhash", 1), 2)
            value = block["tx"][0]["vout"][0]["value"]
            assert isinstance(value, Decimal) and value == Decimal("50")
            wallet = client.for_wallet("payer")
            assert isinstance(await wallet.call("getbalance"), Decimal)
            await wallet.close()

    run(scenario())


def test_a_refused_call_is_an_rpc_error_with_the_node_code(litecoin: Litecoin) -> None:
    async def scenario() -> None:
        async with litecoin.client() as client:
            with pytest.raises(RpcError) as unknown:
                await client.call("getrawtransaction", "00" * 32, True)
            assert unknown.value.code == RPC_INVALID_ADDRESS_OR_KEY
            with pytest.raises(RpcError) as missing:
                await client.call("nosuchmethod")
            assert missing.value.code == RPC_METHOD_NOT_FOUND

    run(scenario())


def test_a_batch_gives_each_call_its_result_or_its_refusal(litecoin: Litecoin) -> None:
    async def scenario() -> None:
        async with litecoin.client() as client:
            count, refused, genesis = await client.batch([("getblockcount", []), ("getblockhash", [10**6]),
                                                          ("getblockhash", [0])])
            assert count == litecoin.head()
            assert isinstance(refused, RpcError) and refused.code == -8
            assert genesis == litecoin.call("getblockhash", 0)

    run(scenario())


def test_wrong_credentials_or_no_node_is_chain_unavailable_without_the_password(litecoin: Litecoin) -> None:
    password = urlsplit(litecoin.dev.rpc_url).password
    assert password
    wrong = litecoin.dev.rpc_url.replace(f":{password}@", f":{password}x@", 1)
    nobody = f"http://paygate:{password}@127.0.0.1:{free_port()}"

    async def scenario() -> None:
        for url in (wrong, nobody):
            async with NodeClient(url, timeout=2) as client:
                with pytest.raises(ChainUnavailable) as e:
                    await client.call("getblockcount")
                assert password not in str(e.value)

    run(scenario())


def test_the_probe_answers_for_the_node_and_not_for_a_closed_port_or_another_chain(litecoin: Litecoin) -> None:
    network = litecoin.network
    assert run(probe.answers(network)) is True
    assert run(probe.answers(dataclasses.replace(network, rpc_url=f"http://u:p@127.0.0.1:{free_port()}"))) is False
    other_chain = dataclasses.replace(network, params={**network.params, "chain": "test"})
    assert run(probe.answers(other_chain)) is False


def test_the_scanner_check_refuses_a_node_of_another_chain(litecoin: Litecoin) -> None:
    network = litecoin.network

    async def scenario() -> None:
        ours = UtxoScanner.for_network(network)
        await ours.check()
        await ours.close()
        theirs = UtxoScanner.for_network(dataclasses.replace(network, params={**network.params, "chain": "test"}))
        with pytest.raises(ChainUnavailable, match="regtest"):
            await theirs.check()
        await theirs.close()

    run(scenario())
