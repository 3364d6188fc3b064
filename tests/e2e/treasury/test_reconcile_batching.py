"""Reconciliation asks the node in JSON-RPC batches (server/rails/evm/node.py): reconciling many addresses takes a
bounded number of HTTP requests, counted by a local proxy in front of Anvil, and finds what one call per address
and asset finds."""

from __future__ import annotations

import asyncio
import math
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import SQLModel

import migrations.tables  # noqa: F401  (fills the metadata)
from server.boot.composition import compose
from server.config import load_settings
from server.rails.evm.node import BATCH_SIZE, Node
from server.treasury.ledger.reconcile import reconcile
from tests.chain import Chain, chain  # noqa: F401  (the session's Anvil)
from tests.e2e.refunds.support import FUNDER
from tests.harness import create_database, drop_database
from tests.unit.treasury.world import World

ADDRESSES = 30


class CountingProxy:
    """An HTTP proxy to the node that counts the requests it forwards."""

    def __init__(self, target: str) -> None:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                proxy.requests += 1
                forwarded = urllib.request.Request(target, data=body, headers={"Content-Type": "application/json"})
                with urllib.request.urlopen(forwarded, timeout=30) as answer:
                    data = answer.read()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.requests = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture(params=["sqlite", "postgresql"])
def proxied(request: pytest.FixtureRequest, tmp_path: Path,
            chain: Chain) -> Iterator[tuple[World, CountingProxy]]:  # noqa: F811
    proxy = CountingProxy(chain.dev.rpc_url)
    url = create_database(request.param, tmp_path)
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    SQLModel.metadata.create_all(engine)
    engine.dispose()
    networks = tmp_path / "networks.toml"
    networks.write_text(chain.networks_file.read_text().replace(chain.dev.rpc_url, proxy.url))
    rt = compose(load_settings({"PAYGATE_DATABASE_URL": url, "PAYGATE_NETWORKS": str(networks)}),
                 var_dir=tmp_path / "var")
    try:
        yield World(rt), proxy
    finally:
        asyncio.run(rt.db.close())
        drop_database(url)
        proxy.server.shutdown()


def _places(w: World) -> list[str]:
    m = w.merchant()
    addresses = [w.deposit_address(m) for _ in range(ADDRESSES)]
    for address in addresses:
        w.transfer(address, "1", "confirmed", "approved")
    return addresses


def test_reconciling_many_addresses_takes_a_bounded_number_of_requests(
        proxied: tuple[World, CountingProxy]) -> None:
    world, proxy = proxied
    _places(world)
    proxy.requests = 0
    lines = world.run(reconcile(world.rt))
    assert len(lines) >= ADDRESSES * 3  # every deposit address and the treasury, in ETH, USDT and USDC
    assert proxy.requests <= math.ceil(len(lines) / BATCH_SIZE), proxy.requests


def test_batched_reconciliation_finds_what_one_call_per_address_finds(
        chain: Chain, proxied: tuple[World, CountingProxy]) -> None:  # noqa: F811
    world, _ = proxied
    addresses = _places(world)
    chain.send_eth(FUNDER, addresses[3], 12345)
    chain.send_token("USDT", FUNDER, addresses[7], 777)
    lines = world.run(reconcile(world.rt))
    node = Node(chain.dev.rpc_url)
    assets = world.rt.catalogue.by_id

    async def one_by_one() -> list[int]:
        return [await node.balance(assets[x.asset_id], x.address) for x in lines]
    assert [int(x.chain.scaleb(assets[x.asset_id].decimals)) for x in lines] == world.run(one_by_one())
    held = {(x.address, x.asset_id): x.chain for x in lines}
    assert held[(addresses[3].lower(), "ETH-ETH-TEST")] > 0 and held[(addresses[7].lower(), "USDT-ETH-TEST")] > 0
