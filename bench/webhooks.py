"""Webhook deliveries per second to a local receiver, with 1 and then 2 scheduler processes on PostgreSQL.

One run creates a scratch PostgreSQL database, migrates it, creates a merchant with one test-mode endpoint pointing
at a threaded HTTP receiver on loopback (answers 200 at once), then per round records `--events` events in this
process (the outbox fans each out to a pending delivery), starts N `paygate serve --only scheduler` processes
(polling every 0.1 s) and times the deliveries from the first request received to the last. It prints deliveries/s
per round and the ratio 2/1. The receiver, the schedulers and PostgreSQL share the machine's CPUs: read the figures
as a ratio on one machine; nothing here asserts a time.

    .venv/bin/python bench/webhooks.py [--events 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from paygate.v1 import customers_pb2  # noqa: E402

from server import clock  # noqa: E402
from server.cli import create_merchant_record  # noqa: E402
from server.config import load_settings  # noqa: E402
from server.db import Database  # noqa: E402
from server.events.outbox import API_VERSION, record, subscribe  # noqa: E402
from server.ids import new_id  # noqa: E402
from server.webhooks.models import WebhookEndpoint  # noqa: E402
from server.webhooks.queue import fan_out  # noqa: E402
from tests.e2e.webhooks.receiver import Receiver, running  # noqa: E402
from tests.harness import create_database, drop_database, paygate  # noqa: E402


async def seed_endpoint(url: str, merchant_id: str, receiver_url: str) -> None:
    db = Database(url)
    async with db.transaction() as session:
        now = clock.now()
        session.add(WebhookEndpoint(id=new_id("we"), merchant_id=merchant_id, livemode=False, url=receiver_url,
                                    enabled_events=["*"], secret="whsec_bench", api_version=API_VERSION,
                                    created=now, updated=now))
    await db.close()


async def record_events(url: str, merchant_id: str, count: int) -> None:
    db = Database(url)
    subscribe(db, fan_out)  # as the webhooks' register(runtime) does: each event fans out to a pending delivery
    for start in range(0, count, 200):
        async with db.transaction() as session:
            for _ in range(min(200, count - start)):
                await record(session, merchant_id=merchant_id, livemode=False, type="customer.created",
                             resource=customers_pb2.Customer(id=new_id("cus"), object="customer", name="Bench"))
    await db.close()


def round_(env: dict[str, str], workdir: Path, url: str, merchant_id: str, receiver: Receiver, events: int,
           processes: int) -> float:
    asyncio.run(record_events(url, merchant_id, events))
    before = len(receiver.received)
    env = {**env, "PAYGATE_WEBHOOK_POLL_SECONDS": "0.1", "PAYGATE_LOG_LEVEL": "WARNING"}
    procs = [subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--only", "scheduler"], env=env,
                              cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for _ in range(processes)]
    try:
        got = receiver.wait_for(before + events, timeout=600)[before:]
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            p.wait(timeout=30)
    return events / max(got[-1].at - got[0].at, 1e-6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2000)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="paygate-bench-webhooks-"))
    url = create_database("postgresql", workdir)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAYGATE_")}
    # The receiver is on loopback: private targets need the operator's consent (DESIGN §14).
    env.update(PAYGATE_DATABASE_URL=url, PYTHONPATH=str(ROOT), PAYGATE_WEBHOOK_ALLOW_PRIVATE="true")
    try:
        migrated = paygate(env, workdir, "migrate")
        assert migrated.returncode == 0, migrated.stderr
        merchant = asyncio.run(create_merchant_record(load_settings({"PAYGATE_DATABASE_URL": url}), "Bench"))
        with running(Receiver()) as receiver:
            asyncio.run(seed_endpoint(url, merchant["merchant_id"], receiver.url))
            print(f"# {platform.node()} {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; "
                  f"{args.events} deliveries per round, PostgreSQL, receiver on loopback")
            rates = {}
            for processes in (1, 2):
                rates[processes] = round_(env, workdir, url, merchant["merchant_id"], receiver, args.events,
                                          processes)
                print(f"{processes} scheduler process{'es' if processes > 1 else ''}: "
                      f"{rates[processes]:8.0f} deliveries/s")
            print(f"ratio 2/1: {rates[2] / rates[1]:.2f}")
            dup = len(receiver.received) - len({r.headers["paygate-delivery-id"] for r in receiver.received})
            print(f"duplicate attempts received: {dup}")
    finally:
        drop_database(url)


if __name__ == "__main__":
    main()
