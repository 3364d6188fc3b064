"""Payment intents end to end through the facade: create an intent, then choose crypto (a deposit address and a quote).

For each database (a temporary SQLite file; PostgreSQL unless `--no-postgres`: a scratch database on the test server,
dropped afterwards) and each worker count (`--workers 1,2`), one run starts `paygate serve --only http --only grpc
--workers N` (the facade calling the servicers in-process, as deployed; no scheduler, so that nothing else loads the
machine), creates a merchant, warms up, and times with `--concurrency` HTTP clients:

* `create-customer`: the simplest write through the same stack, the baseline of the rows below;
* `create-intent`: `POST /v1/payment_intents` (amount, currency);
* `choose-crypto`: `POST /v1/payment_intents/{id}` choosing a test-chain asset, on the intents just created;
* `intent-flow`: both in sequence per client (one flow = two requests).

It prints req/s, p50 and p99 per row, each row's ratio to `create-customer` of the same server, and per database the
ratio of N workers to 1 worker. The client shares the CPUs with paygate and the database: read ratios, compare runs
only on an otherwise idle machine (the header prints the load average), and never assert on them.

    .venv/bin/python bench/intents.py [--requests 1000] [--concurrency 32] [--workers 1,2] [--no-postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import httpx  # noqa: E402
from facade import KEEPALIVE_SECONDS, Processes, Row, run_batch  # noqa: E402

from server.boot.cli import create_merchant_record  # noqa: E402
from server.config import load_settings  # noqa: E402
from tests.harness import create_database, drop_database, free_port, node_networks, paygate  # noqa: E402

ASSET = "USDT-ETH-TEST"  # an asset of the test catalogue (no chain is needed to quote and derive an address)
OPERATIONS = ("create-customer", "create-intent", "choose-crypto", "intent-flow")


def _data(response: httpx.Response) -> dict[str, Any]:
    if response.status_code != 200:
        raise RuntimeError(f"HTTP {response.status_code}: {response.text[:200]}")
    body = response.json()
    if body.get("code") != 0:
        raise RuntimeError(f"envelope {body!r}"[:300])
    return body["data"]  # type: ignore[no-any-return]


async def measure(url: str, secret_key: str, requests: int, concurrency: int, warmup: int) -> dict[str, Row]:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency,
                          keepalive_expiry=KEEPALIVE_SECONDS)
    client = httpx.AsyncClient(base_url=url, auth=httpx.BasicAuth(secret_key, ""), limits=limits, timeout=60)
    intents: list[str] = []

    async def create_customer(i: int) -> str:
        return str(_data(await client.post("/v1/customers", json={"name": f"C{i}"}))["id"])

    async def create_intent(i: int) -> str:
        intent_id = str(_data(await client.post("/v1/payment_intents",
                                                json={"amount": "10.50", "currency": "USD"}))["id"])
        intents.append(intent_id)
        return intent_id

    async def choose(intent_id: str) -> str:
        data = _data(await client.post(f"/v1/payment_intents/{intent_id}", json={
            "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": ASSET}}}))
        chosen = data["payment_intents"][0]
        if chosen["id"] != intent_id:
            raise RuntimeError(f"asked for {intent_id}, got {chosen['id']}")
        return intent_id

    pending: list[str] = []

    async def choose_next(i: int) -> str:
        return await choose(pending.pop())

    async def flow(i: int) -> str:
        return await choose(await create_intent(i))

    calls: dict[str, Callable[[int], Awaitable[str]]] = {
        "create-customer": create_customer, "create-intent": create_intent, "choose-crypto": choose_next,
        "intent-flow": flow}
    rows: dict[str, Row] = {}
    try:
        for op in ("create-customer", "intent-flow"):  # warm-up, untimed but checked
            warm = await run_batch("warm-up", op, calls[op], warmup, concurrency)
            if warm.errors:
                raise SystemExit(f"warm-up {op}: {warm.errors} failed; first: {warm.first_error}")
        for op in OPERATIONS:
            if op == "choose-crypto":
                pending[:] = intents[-requests:]  # the intents the create-intent row made, none chosen yet
            rows[op] = await run_batch("facade", op, calls[op], requests, concurrency)
    finally:
        await client.aclose()
    return rows


def run_one(kind: str, workers: int, args: argparse.Namespace, workdir: Path) -> dict[str, Row]:
    here = workdir / f"{kind}-{workers}"
    here.mkdir()
    (here / "networks.toml").write_text(node_networks())  # choosing crypto needs a node that answers
    database_url = create_database(kind, here)
    http_port, grpc_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAYGATE_")}
    env.update(PAYGATE_DATABASE_URL=database_url, PAYGATE_HTTP_ADDR=f"127.0.0.1:{http_port}",
               PAYGATE_GRPC_ADDR=f"127.0.0.1:{grpc_port}", PAYGATE_CHECKOUT_URL="https://checkout.bench",
               PAYGATE_NETWORKS=str(here / "networks.toml"), PAYGATE_LOG_LEVEL=args.log_level,
               PYTHONPATH=str(ROOT), PAYGATE_RATE_LIMIT_PER_SECOND="100000", PAYGATE_RATE_LIMIT_BURST="200000")
    processes = Processes(here)
    try:
        migrated = paygate(env, here, "migrate")
        if migrated.returncode != 0:
            raise SystemExit(f"paygate migrate failed:\n{migrated.stderr}")
        settings = load_settings({k: v for k, v in env.items() if k.startswith("PAYGATE_")})
        merchant = asyncio.run(create_merchant_record(settings, "Bench merchant"))
        serve = processes.launch("paygate", [sys.executable, "-m", "server.boot.cli", "serve", "--only", "http",
                                             "--only", "grpc", "--workers", str(workers)], env)
        processes.wait_ready("paygate", serve, f"http://127.0.0.1:{http_port}/healthz")
        return asyncio.run(measure(f"http://127.0.0.1:{http_port}", merchant["test"]["secret_key"], args.requests,
                                   args.concurrency, args.warmup))
    finally:
        processes.stop_all()
        if kind == "postgresql":
            drop_database(database_url)


def report(results: dict[tuple[str, int], dict[str, Row]], context: str) -> str:
    lines = [context, ""]
    header = (f"{'database':<11} {'workers':>7} {'operation':<16} {'ok':>6} {'errors':>6} {'req/s':>8} "
              f"{'p50 ms':>8} {'p99 ms':>8} {'/customer':>9}")
    lines += [header, "-" * len(header)]
    for (kind, workers), rows in results.items():
        base = rows["create-customer"].rate
        for op, r in rows.items():
            ratio = f"{r.rate / base:.2f}x" if base else "n/a"
            lines.append(f"{kind:<11} {workers:>7} {op:<16} {len(r.latencies):>6} {r.errors:>6} {r.rate:>8.1f} "
                         f"{r.percentile(0.5):>8.2f} {r.percentile(0.99):>8.2f} {ratio:>9}")
    lines += ["", "N workers / 1 worker (req/s)", ""]
    for (kind, workers), rows in results.items():
        one = results.get((kind, 1))
        if workers == 1 or one is None:
            continue
        parts = [f"{op} {rows[op].rate / one[op].rate:.2f}x" for op in OPERATIONS if one[op].rate]
        lines.append(f"{kind} {workers}/1: " + ", ".join(parts))
    for (kind, workers), rows in results.items():
        for op, r in rows.items():
            if r.errors:
                lines.append(f"\n{kind} {workers} {op}: {r.errors} failed; first: {r.first_error}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000, help="requests (flows) per row (default 1000)")
    parser.add_argument("--concurrency", type=int, default=32, help="concurrent HTTP clients (default 32)")
    parser.add_argument("--warmup", type=int, default=50, help="untimed requests per kind first (default 50)")
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts (default 1,2)")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    parser.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    parser.add_argument("--log-level", default="INFO", help="paygate's PAYGATE_LOG_LEVEL (default INFO, as deployed)")
    args = parser.parse_args(argv)
    worker_counts = [int(w) for w in args.workers.split(",")]
    kinds = [k for k, off in (("sqlite", args.no_sqlite), ("postgresql", args.no_postgres)) if not off]
    workdir = Path(tempfile.mkdtemp(prefix="paygate-bench-intents-"))
    results: dict[tuple[str, int], dict[str, Row]] = {}
    load_before = os.getloadavg()[0]
    try:
        for kind in kinds:
            for workers in worker_counts:
                results[(kind, workers)] = run_one(kind, workers, args, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    load_after = os.getloadavg()[0]
    context = (f"paygate intents bench: {args.requests} requests per row, {args.concurrency} concurrent clients, "
               f"facade in-process, log level {args.log_level}, Python {platform.python_version()}, "
               f"{os.cpu_count()} CPUs shared by client, paygate and the database "
               f"(1-min load average {load_before:.2f} before, {load_after:.2f} after)")
    print(report(results, context))
    return 1 if any(r.errors for rows in results.values() for r in rows.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
