"""What the Prometheus metrics cost (DESIGN §22): create-customer through the facade with metrics on and off.

One run starts two `paygate serve --only http --only grpc` over one database: one as deployed, one whose metric
hooks (server/metrics.py) are replaced by no-ops before it starts (this file with `--serve-without-metrics`; a bench
switch only, not a setting). It creates a merchant, warms both up, then runs `--requests` create-customer calls on
each with `--concurrency` workers, in `--rounds` batches interleaved between the two, and prints req/s, p50, p99
and the ratio on/off. Every response is checked (bench/facade.py's batch runner); nothing here asserts a time.

    .venv/bin/python bench/metrics.py [--requests 2000] [--concurrency 16] [--database-url postgresql://…/db]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))  # bench/facade.py's helpers (it puts the repository on the path itself)

import httpx  # noqa: E402
from facade import ROOT, START_TIMEOUT_SECONDS, Call, Processes, Row, _check_http, run_batch  # noqa: E402

from server.boot.cli import create_merchant_record  # noqa: E402
from server.config import load_settings  # noqa: E402
from tests.harness import free_port, paygate  # noqa: E402

TARGETS = ("metrics on", "metrics off")


def serve_without_metrics(argv: list[str]) -> int:
    from server import metrics
    from server.boot import cli

    def off(*args: object) -> None:
        return None

    for hook in ("request_done", "webhook_delivered", "chain_height", "rate_limited"):
        setattr(metrics, hook, off)
    return int(cli.main(argv) or 0)


async def measure(urls: dict[str, str], secret_key: str, requests: int, concurrency: int, warmup: int,
                  rounds: int) -> dict[str, list[Row]]:
    limits = httpx.Limits(max_connections=concurrency, keepalive_expiry=1.0)
    rows: dict[str, list[Row]] = {t: [] for t in urls}
    clients = {t: httpx.AsyncClient(base_url=u, auth=(secret_key, ""), limits=limits, timeout=30)
               for t, u in urls.items()}
    try:
        def create(target: str) -> Call:
            async def call(i: int) -> str:
                return _check_http(await clients[target].post("/v1/customers", json={"name": f"bench {i}"}), True)
            return call

        for target in urls:
            await run_batch(target, "warm-up", create(target), warmup, concurrency)
        per_round = max(1, requests // rounds)
        for r in range(rounds):
            order = list(urls) if r % 2 == 0 else list(reversed(urls))  # neither always goes first
            for target in order:
                rows[target].append(await run_batch(target, "create-customer", create(target), per_round,
                                                    concurrency))
    finally:
        for client in clients.values():
            await client.aclose()
    return rows


def _merged(target: str, batches: list[Row]) -> Row:
    row = Row(target, "create-customer", [lat for b in batches for lat in b.latencies], sum(b.elapsed for b in batches))
    row.errors = sum(b.errors for b in batches)
    row.first_error = next((b.first_error for b in batches if b.first_error), "")
    return row


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    if args_in[:1] == ["--serve-without-metrics"]:
        return serve_without_metrics(args_in[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000, help="create-customer calls per target (2000)")
    parser.add_argument("--concurrency", type=int, default=16, help="concurrent workers (16)")
    parser.add_argument("--warmup", type=int, default=100, help="untimed requests per target first (100)")
    parser.add_argument("--rounds", type=int, default=4, help="interleaved batches per target (4)")
    parser.add_argument("--database-url", default="", help="default: a temporary SQLite file")
    args = parser.parse_args(args_in)
    workdir = Path(tempfile.mkdtemp(prefix="paygate-bench-metrics-"))
    database_url = args.database_url or f"sqlite:///{workdir / 'bench.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAYGATE_")}
    env.update(PAYGATE_DATABASE_URL=database_url, PAYGATE_CHECKOUT_URL="https://checkout.bench", PYTHONPATH=str(ROOT),
               PAYGATE_RATE_LIMIT_PER_SECOND="100000", PAYGATE_RATE_LIMIT_BURST="200000")
    processes = Processes(workdir)
    try:
        migrated = paygate(env, workdir, "migrate", timeout=START_TIMEOUT_SECONDS)
        if migrated.returncode != 0:
            raise SystemExit(f"paygate migrate failed:\n{migrated.stderr}")
        merchant = asyncio.run(create_merchant_record(load_settings({"PAYGATE_DATABASE_URL": database_url}),
                                                      "Bench merchant"))
        urls: dict[str, str] = {}
        for target in TARGETS:
            http_port, grpc_port = free_port(), free_port()
            served = dict(env, PAYGATE_HTTP_ADDR=f"127.0.0.1:{http_port}", PAYGATE_GRPC_ADDR=f"127.0.0.1:{grpc_port}")
            program = ["-m", "server.boot.cli"] if target == "metrics on" else [__file__, "--serve-without-metrics"]
            name = target.replace(" ", "-")
            proc = processes.launch(name, [sys.executable, *program, "serve", "--only", "http", "--only", "grpc"],
                                    served)
            processes.wait_ready(name, proc, f"http://127.0.0.1:{http_port}/healthz")
            urls[target] = f"http://127.0.0.1:{http_port}"
        batches = asyncio.run(measure(urls, merchant["test"]["secret_key"], args.requests, args.concurrency,
                                      args.warmup, args.rounds))
    finally:
        processes.stop_all()
        shutil.rmtree(workdir, ignore_errors=True)
    rows = {t: _merged(t, b) for t, b in batches.items()}
    print(f"paygate metrics bench: create-customer, {args.requests} requests per target, {args.concurrency} "
          f"concurrent, {args.rounds} interleaved rounds, database "
          f"{'temporary SQLite file' if not args.database_url else 'PostgreSQL'}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs")
    for row in rows.values():
        print(f"  {row.target:<12} {row.rate:8.1f} req/s   p50 {row.percentile(0.5):7.2f} ms   "
              f"p99 {row.percentile(0.99):7.2f} ms   errors {row.errors} {row.first_error}")
    on, off = rows["metrics on"], rows["metrics off"]
    print(f"  on/off throughput ratio: {on.rate / off.rate:.3f}" if off.rate else "  on/off: no successful request")
    return 1 if any(r.errors for r in rows.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
