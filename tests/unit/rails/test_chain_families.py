"""The chain-family seam (issue 9): a family is its package plus one `FAMILIES` line, keys included. `toy` below is
such a family in miniature: its own address form and its own derivation, registered beside EVM. The code that hands
out deposit addresses, finds treasuries and derives signing keys must ask the network's family, never assume EVM.
No node is reached: the toy rail has no capability beyond its name, and its probe always answers."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa
from paygate.v1 import payment_intents_pb2 as pb
from sqlmodel import SQLModel

import migrations.tables  # noqa: F401  (fills the metadata)
from server.boot.composition import compose
from server.catalogue.catalogue import Catalogue, Network
from server.config import Settings, load_settings
from server.context import Caller
from server.db import Database
from server.merchants.service import create_merchant
from server.payment_intents import service
from server.rails import registry
from server.rails.base import ChainScanner, Family, Rail
from server.rails.evm.derivation import EvmKeys
from server.runtime import Runtime
from server.treasury import signing_keys
from server.treasury.ledger.listeners import treasury_of
from server.wallet.models import WalletAccount
from tests.harness import TEST_NETWORKS

TOY_NETWORK = """
[[networks]]
id = "TOY-TEST"
family = "toy"
rpc_url = "toy://node"
native_coin = "ETH"

[[networks.assets]]
coin = "ETH"
display_name = "Toy Ether"
decimals = 9
"""


class ToyKeys:
    """Addresses `toy1…` from a hash of the seed's words and the path; a key is the hash itself."""

    def _hash(self, mnemonic: str, *path: int) -> bytes:
        return hashlib.sha256((mnemonic + "/" + "/".join(map(str, path))).encode()).digest()

    def deposit_address(self, mnemonic: str, account: int, index: int) -> str:
        return "toy1" + self._hash(mnemonic, account, 0, index).hex()[:32]

    def deposit_key(self, mnemonic: str, account: int, index: int) -> bytes:
        return self._hash(mnemonic, account, 0, index)

    def treasury_address(self, mnemonic: str, account: int) -> str:
        return "toy1" + self._hash(mnemonic, account, 1, 0).hex()[:32]

    def treasury_key(self, mnemonic: str, account: int) -> bytes:
        return self._hash(mnemonic, account, 1, 0)

    def display_address(self, stored: str) -> str:
        return stored.upper()


@dataclass
class ToyRail:
    name: str
    family: str = "toy"


def _rail(network: Network, catalogue: Catalogue, db: Database, settings: Settings) -> Rail:
    return ToyRail(network.id)


@dataclass
class ToyScanner:
    """Built at start-up like every family's scanner; no test here runs the watcher, so it is never asked."""

    network: str


def _scanner(network: Network) -> ChainScanner:
    return ToyScanner(network.id)  # type: ignore[return-value]


async def _answers(network: Network) -> bool:
    return True


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runtime]:
    monkeypatch.setitem(registry.FAMILIES, "toy",
                        Family(rail=_rail, scanner=_scanner, probe=_answers, keys=ToyKeys()))
    url = f"sqlite:///{tmp_path / 'p.db'}"
    engine = sa.create_engine(url)
    SQLModel.metadata.create_all(engine)
    engine.dispose()
    networks = tmp_path / "networks.toml"
    # ETH-TEST without an rpc_url: only the toy network is payable, and nothing dials an EVM node.
    networks.write_text(TEST_NETWORKS.replace('rpc_url = "http://127.0.0.1:8545"\n', "") + TOY_NETWORK)
    rt = compose(load_settings({"PAYGATE_DATABASE_URL": url, "PAYGATE_NETWORKS": str(networks)}),
                 var_dir=tmp_path / "var")
    yield rt
    asyncio.run(rt.db.close())


def _pay_with_toy_ether(rt: Runtime) -> tuple[str, str, int]:
    """(merchant id, the attempt's deposit address, the merchant's account number)."""
    async def scenario() -> tuple[str, str, int]:
        async with rt.db.transaction() as s:
            merchant, _ = await create_merchant(s, "Shop")
        caller = Caller(merchant.id, False, "secret")
        await rt.health.answering()
        async with rt.db.transaction() as s:
            created = await service.create(s, rt, caller, pb.CreatePaymentIntentRequest(
                amount="10", currency="USD", merchant_order_id="order-1"))
        async with rt.db.transaction() as s:
            loaded = await service.update(s, rt, caller, pb.UpdatePaymentIntentRequest(
                id=created.intent.id, payment_method_type="crypto",
                payment_method_options=pb.PaymentMethodOptionsInput(
                    crypto=pb.CryptoPaymentInput(asset_id="ETH-TOY-TEST"))))
        async with rt.db.read() as s:
            account = await s.get(WalletAccount, (merchant.id, False))
        assert account is not None
        return merchant.id, loaded.charges[-1].deposit_address, account.account

    return asyncio.run(scenario())


def test_a_payment_attempt_on_a_network_of_another_family_gets_that_familys_deposit_address(
        runtime: Runtime) -> None:
    _, address, account = _pay_with_toy_ether(runtime)
    assert address == ToyKeys().deposit_address(runtime.keys.mnemonic(False), account, 0)


def test_the_deposit_key_of_a_toy_address_is_derived_by_the_toy_family(runtime: Runtime) -> None:
    merchant_id, address, account = _pay_with_toy_ether(runtime)
    key = asyncio.run(signing_keys.deposit(runtime, "TOY-TEST", merchant_id, False, address))
    assert key == ToyKeys().deposit_key(runtime.keys.mnemonic(False), account, 0)


def test_a_merchants_treasury_on_each_network_is_its_familys(runtime: Runtime) -> None:
    merchant_id, _, account = _pay_with_toy_ether(runtime)
    mnemonic = runtime.keys.mnemonic(False)

    async def treasuries() -> tuple[str, str]:
        async with runtime.db.read() as s:
            return (await treasury_of(runtime, s, "TOY-TEST", merchant_id, False),
                    await treasury_of(runtime, s, "ETH-TEST", merchant_id, False))

    assert asyncio.run(treasuries()) == (ToyKeys().treasury_address(mnemonic, account),
                                         EvmKeys().treasury_address(mnemonic, account))
    signing = asyncio.run(signing_keys.treasury(runtime, "TOY-TEST", merchant_id, False))
    assert signing == (ToyKeys().treasury_address(mnemonic, account), ToyKeys().treasury_key(mnemonic, account))


def test_a_network_of_an_unregistered_family_has_no_treasury_and_no_keys(runtime: Runtime) -> None:
    merchant_id, address, _ = _pay_with_toy_ether(runtime)
    assert asyncio.run(signing_keys.treasury(runtime, "NOPE-TEST", merchant_id, False)) is None
    assert asyncio.run(signing_keys.deposit(runtime, "NOPE-TEST", merchant_id, False, address)) is None


def test_the_registry_gives_each_network_its_familys_keys(runtime: Runtime) -> None:
    networks = runtime.catalogue.networks
    assert isinstance(registry.key_scheme(networks["TOY-TEST"]), ToyKeys)
    assert isinstance(registry.key_scheme(networks["ETH-TEST"]), EvmKeys)
    assert isinstance(registry.merchant_key_scheme(), EvmKeys)  # the spec's one merchant `treasury_address`
