"""How fast the chain watcher detects transfers, and how its scan cost grows with the number of watched addresses.

One run, per chain family (`--family evm`, `utxo` or `both`, the default: the two tables come from the same run on
the same machine), starts that family's dev chain (through `paygate devchain`'s code: Anvil, or litecoind -regtest),
puts `--transfers` transfers into blocks of `--per-block` (EVM: half USDT, half native ETH, each to a different
address, one transaction each; UTXO: LTC outputs to derived BIP-84 addresses, one `sendmany` transaction per block),
then for each watched-set size
(1,000, 10,000 and 100,000 by default; the 1,000 receiving addresses are always among them) builds a fresh database
(SQLite, or a scratch PostgreSQL database with `--database postgresql`), inserts the watched addresses and times one
watcher from the block before the transfers to the head:

* `scan s`   — the JSON-RPC side only (`EvmScanner.scan` over the range: blocks, receipts, batched eth_getLogs;
  `UtxoScanner.scan`: getblock verbosity 2, and each paying transaction's first input for its sender);
* `pass s`   — a whole watcher pass (lease, scan, recording every transfer and telling the listeners);
* `tx/s`     — transfers detected per second of `pass s`;
* `db ms/tx` — (pass - scan) per transfer: what recording one transfer costs the watcher (its database writes, AML
  screening, the ORM) beside reading the chain;
* scan x, pass x — ratios against the smallest watched set.

Each row is the best of `--repeat` runs (the watcher's records are deleted between runs).

The node, the watcher and SQLite share the machine's CPUs: read the numbers as ratios on one machine. Nothing here
asserts a time.

    .venv/bin/python bench/watcher.py [--transfers 1000] [--per-block 100] [--watched 1000,10000,100000] [--repeat 3]
                                      [--database sqlite|postgresql] [--family evm|utxo|both]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import secrets
import sys
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from server.aml import DenyListScreener, Screening  # noqa: E402
from server.catalogue.catalogue import load  # noqa: E402
from server.chains.models import WatchedAddress  # noqa: E402
from server.db import Database, migrate, sync_url  # noqa: E402
from server.rails.base import ChainScanner  # noqa: E402
from server.rails.evm import devchain  # noqa: E402
from server.rails.evm.networks_file import upsert_network  # noqa: E402
from server.rails.evm.scanner import EvmScanner  # noqa: E402
from server.rails.utxo import devchain as utxo_devchain  # noqa: E402
from server.rails.utxo.derivation import UtxoKeys  # noqa: E402
from server.rails.utxo.scanner import UtxoScanner  # noqa: E402
from server.watcher import NetworkWatcher  # noqa: E402
from tests.harness import create_database, drop_database, free_port  # noqa: E402


def make_transfers(chain: devchain.DevChain, targets: list[str], per_block: int) -> tuple[int, int]:
    """Sends one transfer to each target, `per_block` to a block; returns the first and last block used."""
    from web3 import Web3
    from web3.providers import HTTPProvider

    w3 = Web3(HTTPProvider(chain.rpc_url, request_kwargs={"timeout": 60}))
    token = w3.eth.contract(address=chain.tokens["USDT"], abi=chain.abi)  # type: ignore[call-overload]
    senders = [a["address"] for a in chain.accounts[1:]]
    w3.provider.make_request("evm_setAutomine", [False])  # type: ignore[arg-type]
    first = w3.eth.block_number + 1
    for i, to in enumerate(targets):
        sender, to_cs = senders[i % len(senders)], Web3.to_checksum_address(to)
        if i % 2:
            token.functions.transfer(to_cs, 1_000 + i).transact({"from": sender, "gas": 80_000})
        else:
            w3.eth.send_transaction({"from": sender, "to": to_cs, "value": 10**12 + i, "gas": 21_000})
        if (i + 1) % per_block == 0 or i + 1 == len(targets):
            w3.provider.make_request("evm_mine", [])  # type: ignore[arg-type]
    w3.provider.make_request("evm_setAutomine", [True])  # type: ignore[arg-type]
    return first, w3.eth.block_number


BENCH_MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"


def make_utxo_transfers(chain: utxo_devchain.UtxoDevChain, targets: list[str], per_block: int) -> tuple[int, int]:
    """One `sendmany` from the payer wallet per block, paying `per_block` targets; the first and last block used."""
    first = chain.height() + 1
    for start in range(0, len(targets), per_block):
        chain.payer.call("sendmany", "", {to: "0.0001" for to in targets[start:start + per_block]})
        chain.mine(1)
    return first, chain.height()


def insert_watched(url: str, network: str, addresses: list[str], from_block: int) -> None:
    engine = sa.create_engine(sync_url(url))
    with engine.begin() as conn:
        conn.execute(sa.insert(WatchedAddress.__table__), [  # type: ignore[attr-defined]
            {"network": network, "address": a, "owner_id": "ch_bench", "merchant_id": "mer_bench",
             "livemode": False, "from_block": from_block, "watch_until": 2**40} for a in addresses])
    engine.dispose()


def reset(url: str) -> None:
    """Forgets what a previous pass recorded, so the next one starts again from the block before the transfers."""
    engine = sa.create_engine(sync_url(url))
    with engine.begin() as conn:
        for table in ("chain_transfers", "aml_checks", "network_cursors"):
            conn.execute(sa.text(f"DELETE FROM {table}"))
    engine.dispose()


async def measure(url: str, networks_file: Path, network_id: str, recipients: set[str], first: int, last: int,
                  repeat: int) -> tuple[float, float, int]:
    """Best of `repeat`: the scan alone, then a whole pass (after a warm-up scan that opens the connections)."""
    network = load(networks_file).networks[network_id]
    scanner: ChainScanner = (UtxoScanner.for_network(network) if network.family == "utxo"
                             else EvmScanner.for_network(network))
    await scanner.scan(first, first, recipients)
    scans, passes, found = [], [], 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = await scanner.scan(first, last, recipients)
        scans.append(time.perf_counter() - t0)
        await asyncio.to_thread(reset, url)
        db = Database(url)
        watcher = NetworkWatcher(db, network, scanner, Screening(DenyListScreener(frozenset())))
        t0 = time.perf_counter()
        report = await watcher.run_pass()
        passes.append(time.perf_counter() - t0)
        await db.close()
        assert report.claimed and not report.error, report
        assert report.counts.inserted == len(result.transfers), (report, len(result.transfers))
        found = report.counts.inserted
    await scanner.close()
    return min(scans), min(passes), found


def run_family(family: str, args: argparse.Namespace, sizes: list[int], workdir: Path) -> None:
    networks_file = workdir / family / "networks.toml"
    networks_file.parent.mkdir(parents=True)
    if family == "utxo":
        node = utxo_devchain.start(networks_file)
        stop, network_id = node.stop, utxo_devchain.NETWORK_ID
        keys = UtxoKeys("rltc", 1)
        targets = [keys.deposit_address(BENCH_MNEMONIC, 7, i) for i in range(args.transfers)]
    else:
        chain = devchain.start(free_port(), log_path=workdir / "anvil.log")
        stop, network_id = chain.stop, "ETH-TEST"
        upsert_network(networks_file, chain.network_entry())
        targets = ["0x" + secrets.token_hex(20) for _ in range(args.transfers)]
    try:
        t0 = time.perf_counter()
        first, last = (make_utxo_transfers(node, targets, args.per_block) if family == "utxo"
                       else make_transfers(chain, targets, args.per_block))
        print(f"# {family} · {platform.node()} · {os.cpu_count()} CPUs · load {os.getloadavg()[0]:.2f} · "
              f"{args.database} · {args.transfers} transfers in blocks {first}-{last} "
              f"(sent in {time.perf_counter() - t0:.1f} s)")
        rows = []
        for size in sizes:
            (workdir / family / str(size)).mkdir()
            url = create_database(args.database, workdir / family / str(size))
            try:
                migrate.upgrade(url)
                # Watched addresses nothing pays, of the family's shape (deriving 100,000 real ones would take
                # minutes and change nothing: the scanner only looks an output's address up in the set).
                prefix, digits = ("rltc1q", 19) if family == "utxo" else ("0x", 20)
                extra = [prefix + secrets.token_hex(digits) for _ in range(size - len(targets))]
                insert_watched(url, network_id, targets + extra, first)
                scan_s, pass_s, found = asyncio.run(measure(url, networks_file, network_id, set(targets + extra),
                                                             first, last, args.repeat))
            finally:
                drop_database(url)
            rows.append((size, found, scan_s, pass_s))
            print(f"  measured {family} at {size:,} watched addresses", file=sys.stderr)
        base_scan, base_pass = rows[0][2], rows[0][3]
        print(f"{'watched':>9} {'found':>6} {'scan s':>8} {'pass s':>8} {'tx/s':>8} {'db ms/tx':>9} {'scan x':>7} "
              f"{'pass x':>7}")
        for size, found, scan_s, pass_s in rows:
            print(f"{size:>9,} {found:>6} {scan_s:>8.3f} {pass_s:>8.3f} {found / pass_s:>8.0f} "
                  f"{(pass_s - scan_s) / found * 1000:>9.2f} {scan_s / base_scan:>7.2f} {pass_s / base_pass:>7.2f}")
        print(f"# load {os.getloadavg()[0]:.2f} at the end")
    finally:
        stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--transfers", type=int, default=1000)
    parser.add_argument("--per-block", type=int, default=100)
    parser.add_argument("--watched", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs per row")
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--family", choices=("evm", "utxo", "both"), default="both")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.watched.split(","))
    assert sizes[0] >= args.transfers, "every watched set must hold the receiving addresses"
    workdir = Path(tempfile.mkdtemp(prefix="paygate-bench-watcher-"))
    for family in (("evm", "utxo") if args.family == "both" else (args.family,)):
        run_family(family, args, sizes, workdir)


if __name__ == "__main__":
    main()
