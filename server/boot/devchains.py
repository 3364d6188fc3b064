"""`paygate devchain`: the local test chain of each family asked for (`--families evm,utxo`, each registered
family's `Family.devchain`), their networks in one networks file, one JSON line on stdout, then running until
SIGINT/SIGTERM stops them all. The default family's fields sit at the top of the line (what tools read since the dev
chain was EVM alone); each other family's sit under its name (`"utxo": {"rpc_url", "network", "wallet"}`). A chain
that fails to start stops those already started."""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path
from typing import Any

from server.catalogue.catalogue import DEFAULT_FAMILY
from server.rails.base import DevChain, DevChainFailed
from server.rails.registry import FAMILIES


def with_chains() -> tuple[str, ...]:
    """The families that have a local test chain, in the registry's order."""
    return tuple(name for name, family in FAMILIES.items() if family.devchain is not None)


def parse_families(text: str) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys(f.strip() for f in text.split(",") if f.strip()))
    known = with_chains()
    if not chosen or any(f not in known for f in chosen):
        raise DevChainFailed(f"--families {text!r}: expected a comma-separated list of {', '.join(known)}")
    return chosen


def line(started: dict[str, DevChain]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for family, chain in started.items():
        if family == DEFAULT_FAMILY:
            out.update(chain.info)
        else:
            out[family] = chain.info
    return out


def run(families: tuple[str, ...], port: int, networks_file: Path, *, block_time: float | None = None) -> None:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    networks_file.parent.mkdir(parents=True, exist_ok=True)
    started: dict[str, DevChain] = {}
    try:
        for family in families:
            start = FAMILIES[family].devchain
            assert start is not None  # parse_families chose only families with a dev chain
            started[family] = start(port, networks_file, block_time)
        print(json.dumps(line(started)), flush=True)
        while not stop.wait(0.5):
            dead = [family for family, chain in started.items() if not chain.alive()]
            if dead:
                raise DevChainFailed(f"{dead[0]}: the dev chain's node exited")
    finally:
        for chain in reversed(started.values()):
            chain.stop()
