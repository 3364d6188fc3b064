"""Chain tests run on a real Anvil node (tests/chain.py) with the watcher in-process on a fresh database: each test
once on SQLite and once on PostgreSQL (the lease, its fence and the claims differ between the two)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from server.chains.hooks import TransferListener
from server.chains.models import ChainTransfer
from server.clock import Clock
from tests.chain import Chain, chain  # noqa: F401 - the session fixture
from tests.e2e.chain.rig import Rig, deny_list_screening
from tests.harness import create_database, drop_database

DENIED_SENDER = 9  # the dev account on the tests' deny list


@dataclass(frozen=True)
class Heard:
    tx_hash: str
    previous_status: str
    status: str
    previous_aml: str
    aml_status: str


def recorder(calls: list[Heard]) -> TransferListener:
    async def listener(session: AsyncSession, t: ChainTransfer, previous_status: str, previous_aml: str) -> None:
        assert session.in_transaction()  # listeners run inside the watcher's transaction
        calls.append(Heard(t.tx_hash, previous_status, t.status, previous_aml, t.aml_status))

    return listener


@pytest.fixture
def heard() -> list[Heard]:
    """Every notify() call the rig's watcher makes, in order, as (previous, new) status and AML pairs."""
    return []


def make_rig(chain: Chain, database_url: str, heard: list[Heard], mode: str = "sync",  # noqa: F811
             clock: Clock | None = None) -> Rig:
    screening = deny_list_screening(chain.accounts[DENIED_SENDER].address, mode)
    return Rig(database_url, chain.networks_file, screening, listeners=[recorder(heard)], clock=clock)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database of each backend (tests/harness.py)."""
    url = create_database(request.param, tmp_path)
    yield url
    drop_database(url)


@pytest.fixture
def rig(chain: Chain, database_url: str, heard: list[Heard]) -> Iterator[Rig]:  # noqa: F811
    r = make_rig(chain, database_url, heard)
    yield r
    r.close()


@pytest.fixture
def async_rig(chain: Chain, database_url: str, heard: list[Heard]) -> Iterator[Rig]:  # noqa: F811
    r = make_rig(chain, database_url, heard, mode="async")
    yield r
    r.close()
