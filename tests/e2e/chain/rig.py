"""Drives the chain watcher in-process against the dev chain: a database, watched addresses, passes on demand."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

from sqlmodel import select

from server.aml import DenyListScreener, Screening
from server.catalogue.catalogue import Network, load
from server.chains import hooks
from server.chains.hooks import TransferListener
from server.chains.models import ChainTransfer, NetworkCursor, WatchedAddress
from server.clock import Clock, now_of
from server.db import Database, migrate
from server.rails.evm.scanner import EvmScanner
from server.watcher import NetworkWatcher, PassReport

T = TypeVar("T")
NETWORK = "ETH-TEST"


def fresh_address() -> str:
    """A deposit address nobody else uses (lower-case, as WatchedAddress stores it)."""
    return "0x" + secrets.token_hex(20)


class Rig:
    """One database and one watcher, on one event loop (the engine and the JSON-RPC session stay on it)."""

    def __init__(self, database_url: str, networks_file: Path, screening: Screening, *, migrated: bool = False,
                 listeners: Sequence[TransferListener] = (), clock: Clock | None = None) -> None:
        """`listeners`: what the watcher notifies in its transactions (a runtime's packages would register them);
        `clock`: the database's, when the test sets the time (the wall clock otherwise)."""
        if not migrated:
            migrate.upgrade(database_url)
        self.loop = asyncio.new_event_loop()
        self.url = database_url
        self.network: Network = load(networks_file).networks[NETWORK]
        self.screening = screening
        self.db = Database(database_url, clock=clock)
        self.listeners = tuple(listeners)
        for listener in self.listeners:
            hooks.listen(self.db, listener)
        self.watchers: list[NetworkWatcher] = []
        self.watcher = self.new_watcher()

    def new_watcher(self, *, blocks_per_batch: int = 100) -> NetworkWatcher:
        """A watcher as a restarted process would build it: nothing but the database carries over."""
        watcher = NetworkWatcher(self.db, self.network, EvmScanner.for_network(self.network), self.screening,
                                 blocks_per_batch=blocks_per_batch)
        self.watchers.append(watcher)
        return watcher

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(coro)

    def run_pass(self, watcher: NetworkWatcher | None = None) -> PassReport:
        report = self.run((watcher or self.watcher).run_pass())
        assert report.claimed and not report.error, report
        return report

    def watch(self, address: str | None = None, *, from_block: int = 0, owner_id: str = "ch_test",
              watch_until: int | None = None) -> str:
        address = (address or fresh_address()).lower()

        async def insert() -> None:
            async with self.db.transaction() as session:
                session.add(WatchedAddress(network=NETWORK, address=address, owner_id=owner_id,
                                           merchant_id="mer_test", livemode=False, from_block=from_block,
                                           watch_until=watch_until or now_of(session) + 3600))
        self.run(insert())
        return address

    def transfers(self, to_address: str | None = None) -> list[ChainTransfer]:
        async def read() -> list[ChainTransfer]:
            async with self.db.read() as session:
                query = select(ChainTransfer).where(ChainTransfer.network == NETWORK)
                if to_address:
                    query = query.where(ChainTransfer.to_address == to_address.lower())
                return list((await session.exec(query)).all())
        return self.run(read())

    def transfer(self, tx_hash: str) -> ChainTransfer:
        found = [t for t in self.transfers() if t.tx_hash == tx_hash]
        assert len(found) == 1, found
        return found[0]

    def cursor(self) -> NetworkCursor | None:
        async def read() -> NetworkCursor | None:
            async with self.db.read() as session:
                return await session.get(NetworkCursor, NETWORK)
        return self.run(read())

    def close(self) -> None:
        for watcher in self.watchers:
            self.run(watcher.scanner.close())
        self.run(self.db.close())
        self.loop.close()


def deny_list_screening(denied: str, mode: str = "sync") -> Screening:
    return Screening(DenyListScreener(frozenset({denied.lower()})), mode)
