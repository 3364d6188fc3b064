"""Loads the catalogue once at start-up: built-in networks and fiat, merged with the networks file.

Networks file (TOML), one table per network, e.g. the entry `paygate devchain` writes:

    [[networks]]
    id = "ETH-TEST"            # asset ids are <coin>-<id>; test networks end with -TEST
    chain_id = 31337
    rpc_url = "http://127.0.0.1:8545"
    confirmations = 2
    native_coin = "ETH"        # the coin without a contract; every other asset needs contract_address
    assets = [{ coin = "ETH", decimals = 18 }, { coin = "USDT", decimals = 6, contract_address = "0x…" }]
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BUILTIN = Path(__file__).with_name("catalogue.toml")
DEFAULT_FAMILY = "evm"  # a network's chain family when the networks file names none


class CatalogueError(Exception):
    """The networks file is unusable; the message names the entry and the field."""


@dataclass(frozen=True)
class Asset:
    id: str
    display_name: str
    coin: str
    is_fiat: bool
    decimals: int
    payable: bool
    network: str = ""
    is_mainnet: bool = False
    contract_address: str = ""
    address_url_template: str = ""
    tx_url_template: str = ""
    token: str = ""
    chain_id: int = 0
    symbol: str = ""
    provider: str = ""


@dataclass(frozen=True)
class Network:
    id: str
    display_name: str
    chain_id: int
    is_mainnet: bool
    rpc_url: str
    confirmations: int
    address_url_template: str
    tx_url_template: str
    assets: tuple[Asset, ...] = field(default_factory=tuple)
    family: str = DEFAULT_FAMILY  # the chain family: which rail serves it (server/rails/registry.py)
    # The entry's keys the catalogue does not read itself (a UTXO network's `hrp`, `coin_type`, …): its family's
    # own parameters, read by its rail, so a new family needs no field here.
    params: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class Catalogue:
    networks: dict[str, Network]
    assets: tuple[Asset, ...]

    @property
    def by_id(self) -> dict[str, Asset]:
        return {a.id: a for a in self.assets}

    def for_mode(self, livemode: bool) -> list[Asset]:
        """Fiat currencies and the crypto assets of the mode's networks (test networks in test mode)."""
        return [a for a in self.assets if a.is_fiat or a.is_mainnet == livemode]

    def currency(self, code: str) -> Asset | None:
        """A pricing currency: a fiat code or any asset id of the catalogue."""
        return self.by_id.get(code)


def _merge(base: dict[str, dict[str, Any]], entries: list[dict[str, Any]], source: str) -> None:
    for entry in entries:
        net_id = entry.get("id")
        if not isinstance(net_id, str) or not net_id:
            raise CatalogueError(f"{source}: a [[networks]] entry has no id")
        base[net_id] = {**base.get(net_id, {}), **entry}


_READ_HERE = frozenset({"id", "display_name", "chain_id", "is_mainnet", "rpc_url", "confirmations", "native_coin",
                        "assets", "address_url_template", "tx_url_template", "family"})


def _network(raw: dict[str, Any], providers: frozenset[str], source: str) -> Network:
    net_id = raw["id"]
    try:
        chain_id = int(raw.get("chain_id", 0))
        confirmations = int(raw.get("confirmations", 1))
    except (TypeError, ValueError):
        raise CatalogueError(f"{source}: network {net_id}: chain_id and confirmations must be integers") from None
    is_mainnet = bool(raw.get("is_mainnet", not net_id.endswith("-TEST")))
    if is_mainnet == net_id.endswith("-TEST"):
        raise CatalogueError(f"{source}: network {net_id}: test network ids end with -TEST, production ids do not")
    rpc_url = str(raw.get("rpc_url", ""))
    assets = []
    for a in raw.get("assets", []):
        coin = a.get("coin")
        contract = str(a.get("contract_address", ""))
        # A token is payable only once its contract is known (the dev chain deploys them at start).
        native = coin == raw.get("native_coin")
        if not coin or not isinstance(a.get("decimals"), int):
            raise CatalogueError(f"{source}: network {net_id}: each asset needs coin and integer decimals")
        assets.append(Asset(
            id=f"{coin}-{net_id}", display_name=a.get("display_name", coin), coin=coin, is_fiat=False,
            decimals=a["decimals"], payable=bool(rpc_url) and (native or bool(contract)), network=net_id,
            is_mainnet=is_mainnet, contract_address=contract,
            address_url_template=raw.get("address_url_template", ""),
            tx_url_template=raw.get("tx_url_template", ""), token=coin, chain_id=chain_id,
        ))
    return Network(id=net_id, display_name=raw.get("display_name", net_id), chain_id=chain_id,
                   is_mainnet=is_mainnet, rpc_url=rpc_url, confirmations=confirmations,
                   address_url_template=raw.get("address_url_template", ""),
                   tx_url_template=raw.get("tx_url_template", ""), assets=tuple(assets),
                   family=str(raw.get("family", DEFAULT_FAMILY)),
                   params={k: v for k, v in raw.items() if k not in _READ_HERE})


def load(networks_file: Path | None = None, providers: frozenset[str] = frozenset()) -> Catalogue:
    with BUILTIN.open("rb") as f:
        builtin = tomllib.load(f)
    raw: dict[str, dict[str, Any]] = {}
    _merge(raw, builtin.get("networks", []), str(BUILTIN))
    fiat = list(builtin.get("fiat", []))
    if networks_file is not None:
        try:
            with networks_file.open("rb") as f:
                extra = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise CatalogueError(f"networks file {networks_file}: {e}") from None
        _merge(raw, extra.get("networks", []), str(networks_file))
        fiat.extend(extra.get("fiat", []))
    networks = {net_id: _network(entry, providers, str(networks_file or BUILTIN)) for net_id, entry in raw.items()}
    assets: list[Asset] = [a for n in networks.values() for a in n.assets]
    for f_ in fiat:
        assets.append(Asset(id=f_["code"], display_name=f_.get("display_name", f_["code"]), coin=f_["code"],
                            is_fiat=True, decimals=int(f_.get("decimals", 2)),
                            payable=f_.get("provider", "") in providers, is_mainnet=True,
                            symbol=f_.get("symbol", ""), provider=f_.get("provider", "")))
    return Catalogue(networks=networks, assets=tuple(assets))
