"""What the rate limit costs per request: the same gRPC call with the limits on and off.

One run makes a scratch database (PostgreSQL by default, where buckets live in `rate_limit_buckets`; `--sqlite` for
the in-memory buckets), starts two `paygate serve --only grpc` processes on it, one with a per-key limit that the
run never reaches (2000/s, burst 4000: each UPSERT leases 200 tokens) and one with the limits off (rate 0), creates
a merchant, and times `--requests` GetCustomer calls on each with `--concurrency` workers, in `--rounds` interleaved
batches. It prints req/s and p50/p99 per target and the ratio limited/unlimited.

On PostgreSQL it then times the worst case in-process: one UPSERT … RETURNING per take (a small limit: lease 1, on
distinct buckets so that none is refused) against a `SELECT 1` round trip on the same database, and prints that
ratio too. Nothing here asserts a time; read the ratios on an otherwise idle machine.

    .venv/bin/python bench/ratelimit.py [--requests 2000] [--concurrency 16] [--rounds 4] [--sqlite]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # `tests.harness` when run as `python bench/ratelimit.py`

import grpc  # noqa: E402
from paygate.v1 import customers_pb2, customers_pb2_grpc  # noqa: E402

from server.boot.cli import create_merchant_record  # noqa: E402
from server.config import load_settings  # noqa: E402
from tests.harness import (  # noqa: E402
    TEST_MNEMONIC,
    TEST_SECRET_KEY,
    create_database,
    drop_database,
    free_port,
    mail_sink_url,
    paygate,
)

LIMITS = {
    "limited": {"PAYGATE_RATE_LIMIT_PER_SECOND": "2000", "PAYGATE_RATE_LIMIT_BURST": "4000"},
    "unlimited": {"PAYGATE_RATE_LIMIT_PER_SECOND": "0"},
}


def _wait(addr: str, process: subprocess.Popen[bytes]) -> None:
    host, _, port = addr.rpartition(":")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"paygate serve exited with {process.returncode}")
        with socket.socket() as s:
            if s.connect_ex((host, int(port))) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"paygate serve did not listen on {addr}")


async def _batch(addr: str, key: str, customer_id: str, count: int, concurrency: int) -> list[float]:
    latencies: list[float] = []
    auth = (("authorization", f"Bearer {key}"),)
    async with grpc.aio.insecure_channel(addr) as channel:
        stub = customers_pb2_grpc.CustomerServiceStub(channel)
        left = count

        async def worker() -> None:
            nonlocal left
            while left > 0:
                left -= 1
                started = time.perf_counter()
                await stub.GetCustomer(customers_pb2.GetCustomerRequest(id=customer_id), metadata=auth)
                latencies.append(time.perf_counter() - started)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return latencies


async def _customer(addr: str, key: str) -> str:
    async with grpc.aio.insecure_channel(addr) as channel:
        stub = customers_pb2_grpc.CustomerServiceStub(channel)
        reply = await stub.CreateCustomer(customers_pb2.CreateCustomerRequest(name="bench"),
                                          metadata=(("authorization", f"Bearer {key}"),))
        return str(reply.customer.id)


async def _worst_case(url: str, count: int) -> tuple[float, float]:
    """Milliseconds per take that runs one UPSERT, and per `SELECT 1`, sequentially on one process."""
    from server.db import Database
    from server.ratelimit.buckets import Limit, PostgresBuckets

    db = Database(url)
    buckets = PostgresBuckets(db, idle_seconds=3600)
    small = Limit(rate=5, burst=5)  # lease 1: every take is an UPSERT
    try:
        await buckets.take([("bench:warm", small)])
        await db.ping()
        started = time.perf_counter()
        for i in range(count):
            if await buckets.take([(f"bench:{i}", small)]):
                raise SystemExit("a fresh bucket refused a take")
        take_ms = (time.perf_counter() - started) / count * 1000
        started = time.perf_counter()
        for _ in range(count):
            await db.ping()
        return take_ms, (time.perf_counter() - started) / count * 1000
    finally:
        await db.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--sqlite", action="store_true")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="paygate-bench-ratelimit-"))
    url = create_database("sqlite" if args.sqlite else "postgresql", workdir)
    base = {k: v for k, v in os.environ.items() if not k.startswith("PAYGATE_")}
    base.update(PAYGATE_DATABASE_URL=url, PAYGATE_WALLET_MNEMONIC=TEST_MNEMONIC, PAYGATE_SECRET_KEY=TEST_SECRET_KEY,
                PAYGATE_LOG_LEVEL="WARNING", PYTHONPATH=str(ROOT),
                PAYGATE_SMTP_URL=mail_sink_url())  # live secrets: a live deployment needs SMTP (DESIGN §16)
    processes: dict[str, subprocess.Popen[bytes]] = {}
    addrs: dict[str, str] = {}
    try:
        migrated = paygate(base, workdir, "migrate")
        if migrated.returncode != 0:
            raise SystemExit(migrated.stderr)
        for target, limits in LIMITS.items():
            addrs[target] = f"127.0.0.1:{free_port()}"
            env = {**base, **limits, "PAYGATE_GRPC_ADDR": addrs[target]}
            processes[target] = subprocess.Popen([sys.executable, "-m", "server.boot.cli", "serve", "--only", "grpc"],
                                                 env=env, cwd=workdir, stdout=subprocess.DEVNULL)
            _wait(addrs[target], processes[target])
        merchant = asyncio.run(create_merchant_record(load_settings(base), "bench"))
        key = merchant["test"]["secret_key"]
        customer = asyncio.run(_customer(addrs["unlimited"], key))
        latencies: dict[str, list[float]] = {t: [] for t in LIMITS}
        elapsed: dict[str, float] = dict.fromkeys(LIMITS, 0.0)
        for target in LIMITS:  # warm-up
            asyncio.run(_batch(addrs[target], key, customer, 100, args.concurrency))
        per_round = max(1, args.requests // args.rounds)
        for _ in range(args.rounds):
            for target in LIMITS:
                started = time.perf_counter()
                latencies[target] += asyncio.run(_batch(addrs[target], key, customer, per_round, args.concurrency))
                elapsed[target] += time.perf_counter() - started
        print(f"database: {'sqlite (in-memory buckets)' if args.sqlite else 'postgresql (shared buckets, leased)'}; "
              f"load average {os.getloadavg()[0]:.2f}")
        rates = {}
        for target in LIMITS:
            lat = sorted(latencies[target])
            rates[target] = len(lat) / elapsed[target]
            print(f"{target:10s} {rates[target]:8.0f} req/s  p50 {statistics.median(lat) * 1000:6.2f} ms  "
                  f"p99 {lat[int(len(lat) * 0.99) - 1] * 1000:6.2f} ms")
        print(f"ratio limited/unlimited (req/s): {rates['limited'] / rates['unlimited']:.2f}")
        if not args.sqlite:
            take_ms, ping_ms = asyncio.run(_worst_case(url, 500))
            print(f"worst case, one UPSERT per take: {take_ms:.2f} ms; SELECT 1: {ping_ms:.2f} ms; "
                  f"ratio {take_ms / ping_ms:.2f}")
    finally:
        for process in processes.values():
            process.terminate()
            process.wait(timeout=15)
        drop_database(url)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
