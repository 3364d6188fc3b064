"""Webhook deliveries per second to a local receiver, with 1 and then 2 scheduler processes, on SQLite and
PostgreSQL, against a bare sender measured in the same run.

Per database, one run creates a scratch database, migrates it, creates a merchant with one test-mode endpoint
pointing at a receiver on loopback (its own process: asyncio, minimal HTTP/1.1 with keep-alive, answers 200 at
once, so that it is never the limit), then per round records `--events` events in this process (the outbox fans
each out to a pending delivery) and holds them (due far ahead), starts N `paygate serve --only scheduler` processes
(polling every 0.1 s), makes the attempts due once every process says it is ready, and times the deliveries from
the first request received to the last: delivery, not a process's start-up (with 2,000 events on a fast machine the
second process's start-up was a third of the window). The baseline is a bare sender: as many POSTs of the
same size over `--connections` keep-alive connections (raw asyncio streams, no database, no signing): what the
receiver and the machine allow. It prints deliveries/s per round, the ratios of each round to the baseline and of
2 processes to 1, the duplicates received, and whether the events of one object arrived in order (`--objects`: that
many customers get a created and an updated event each, interleaved with the others). The receiver, the schedulers
and the database share the machine's CPUs: read the figures as ratios on one machine (each section prints the load
average before and after); nothing here asserts a time.

    .venv/bin/python bench/webhooks.py [--events 20000] [--database sqlite|postgresql|both] [--profile DIR]

`--profile DIR` records the one-process round's scheduler with py-spy (`pip install py-spy`) into
DIR/<database>.txt (collapsed stacks) and prints the functions with the most samples.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from paygate.v1 import customers_pb2  # noqa: E402

from server.boot.cli import create_merchant_record  # noqa: E402
from server.clock import now_of  # noqa: E402
from server.config import load_settings  # noqa: E402
from server.db import Database  # noqa: E402
from server.events.outbox import API_VERSION, record, subscribe  # noqa: E402
from server.ids import new_id  # noqa: E402
from server.webhooks.models import WebhookEndpoint  # noqa: E402
from server.webhooks.queue import fan_out  # noqa: E402
from tests.harness import create_database, drop_database, paygate  # noqa: E402


async def seed_endpoint(url: str, merchant_id: str, receiver_url: str) -> None:
    db = Database(url)
    async with db.transaction() as session:
        now = now_of(session)
        session.add(WebhookEndpoint(id=new_id("we"), merchant_id=merchant_id, livemode=False, url=receiver_url,
                                    enabled_events=["*"], secret="whsec_bench", api_version=API_VERSION,
                                    created=now, updated=now))
    await db.close()


async def record_events(url: str, merchant_id: str, count: int, objects: int) -> None:
    """`count` events; the first `objects` customers get a created and an updated event, the updates written in
    later transactions than their creates, interleaved with other customers' events."""
    db = Database(url)
    subscribe(db, fan_out)  # as the webhooks' register(runtime) does: each event fans out to a pending delivery
    twice = [new_id("cus") for _ in range(min(objects, count // 2))]
    plan = [(c, "customer.created") for c in twice] + \
        [(new_id("cus"), "customer.created") for _ in range(count - 2 * len(twice))] + \
        [(c, "customer.updated") for c in twice]
    for start in range(0, count, 200):
        async with db.transaction() as session:
            for customer, type_ in plan[start:start + 200]:
                await record(session, merchant_id=merchant_id, livemode=False, type=type_,
                             resource=customers_pb2.Customer(id=customer, object="customer", name="Bench"))
    await db.close()


class FastReceiver:
    """A receiver in its own process (asyncio, minimal HTTP/1.1, keep-alive) so that neither the GIL of this process
    nor a slow parser limits the schedulers: it answers 200 at once and records (time, delivery id, object, type)
    of each request, served back on `GET /records?from=N`."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, __file__, "--serve-receiver"], stdout=subprocess.PIPE,
                                        text=True)
        assert self.process.stdout is not None
        self.port = int(self.process.stdout.readline())
        self.url = f"http://127.0.0.1:{self.port}/hooks"
        self.received: list[dict[str, Any]] = []

    def _fetch(self) -> None:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/records?from={len(self.received)}") as answer:
            self.received += json.loads(answer.read())

    def wait_for(self, count: int, timeout: float) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._fetch()
            if len(self.received) >= count:
                return self.received
            time.sleep(0.1)
        raise AssertionError(f"received {len(self.received)} of {count} requests")

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def serve_receiver() -> None:
    records: list[dict[str, Any]] = []
    ok = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                if lines[0].startswith("GET /records"):
                    start = int(lines[0].split("from=")[1].split(" ")[0])
                    data = json.dumps(records[start:]).encode()
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: " + str(len(data)).encode() + b"\r\n\r\n"
                                 + data)
                else:
                    at = time.monotonic()
                    event = json.loads(body)
                    obj = event.get("data", {}).get("object", {}).get("id", "")
                    records.append({"at": at, "delivery": headers.get("paygate-delivery-id", ""), "object": obj,
                                    "type": event.get("type", ""), "id": event.get("id", ""), "size": len(body)})
                    writer.write(ok)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()

    async def main() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=512)
        print(server.sockets[0].getsockname()[1], flush=True)
        await server.serve_forever()

    asyncio.run(main())


def profiled(pid: int, out: Path) -> subprocess.Popen[bytes]:
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    return subprocess.Popen([spy, "record", "--pid", str(pid), "--format", "raw", "--rate", "250",
                             "--output", str(out), "--nonblocking"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def top_of_profile(path: Path, n: int = 25) -> None:
    """The functions with the most samples, inclusive (in a stack) and self (on top)."""
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        samples = int(count)
        frames = [f.split(" (")[0] + " " + f.split(" (")[-1].split(":")[0].rsplit("/", 1)[-1].rstrip(")")
                  for f in stack.split(";")]
        total += samples
        for frame in set(frames):
            inclusive[frame] += samples
        own[frames[-1]] += samples
    print(f"  profile: {total} samples ({path})")
    print("  inclusive:")
    for frame, samples in inclusive.most_common(n):
        print(f"    {100 * samples / total:5.1f}%  {frame}")
    print("  self:")
    for frame, samples in own.most_common(n):
        print(f"    {100 * samples / total:5.1f}%  {frame}")


HOLD_SECONDS = 10**9  # added to the due time of the recorded attempts until every scheduler is up


async def shift_due(url: str, seconds: int) -> None:
    db = Database(url)
    async with db.transaction() as session:
        conn = await session.connection()
        await conn.execute(sa.text("UPDATE event_deliveries SET due_at = due_at + :s WHERE status = 'pending'"),
                           {"s": seconds})
    await db.close()


def wait_until_ready(logs: list[Path], procs: list[subprocess.Popen[bytes]], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all("paygate ready" in log.read_text(errors="replace") for log in logs):
            return
        for log, p in zip(logs, procs, strict=True):
            if p.poll() is not None:
                raise SystemExit(f"a scheduler exited with {p.returncode}:\n{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.05)
    raise SystemExit("the schedulers did not start")


def round_(env: dict[str, str], workdir: Path, url: str, merchant_id: str, receiver: FastReceiver, events: int,
           objects: int, processes: int, profile: Path | None) -> float:
    """The recorded attempts are held (due far ahead) until every scheduler process is up, then made due at once:
    the processes start delivering together, so the time measured is delivery, not a process's start-up."""
    asyncio.run(record_events(url, merchant_id, events, objects))
    asyncio.run(shift_due(url, HOLD_SECONDS))
    before = len(receiver.received)
    env = {**env, "PAYGATE_WEBHOOK_POLL_SECONDS": "0.1", "PAYGATE_LOG_LEVEL": "INFO"}
    logs = [workdir / f"scheduler-{processes}-{i}.log" for i in range(processes)]
    procs = [subprocess.Popen([sys.executable, "-m", "server.boot.cli", "serve", "--only", "scheduler"], env=env,
                              cwd=workdir, stdout=log.open("wb"), stderr=subprocess.STDOUT)
             for log in logs]
    spy = profiled(procs[0].pid, profile) if profile else None
    try:
        wait_until_ready(logs, procs)
        asyncio.run(shift_due(url, -HOLD_SECONDS))
        got = receiver.wait_for(before + events, timeout=600)[before:]
    finally:
        if spy is not None:
            spy.send_signal(signal.SIGINT)
            spy.wait(timeout=60)
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):  # where it hangs, if py-spy is installed
                    subprocess.run([str(Path(sys.executable).parent / "py-spy"), "dump", "--native", "--pid",
                                    str(p.pid)])
                p.kill()
                p.wait()
                print(f"(a scheduler process did not stop within 30 s of SIGTERM: killed; exit {p.returncode})")
    return events / max(got[-1]["at"] - got[0]["at"], 1e-6)


def bare_sender(port: int, count: int, connections: int, body_size: int) -> float:
    """The baseline: `count` POSTs over `connections` keep-alive connections, raw asyncio streams, nothing else."""
    body = b'{"id": "evt_bare", "pad": "' + b"x" * max(0, body_size - 28) + b'"}'
    request = (b"POST /hooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
               + str(len(body)).encode() + b"\r\n\r\n" + body)

    async def run() -> float:
        left = iter(range(count))

        async def worker() -> None:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            for _ in left:
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                assert head.startswith(b"HTTP/1.1 200")
                await reader.readexactly(2)
            writer.close()

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(connections)))
        return count / (time.perf_counter() - started)

    return asyncio.run(run())


def in_order(received: list[dict[str, Any]]) -> tuple[int, int]:
    """(objects with more than one event, of which received out of order: an update before its create)."""
    seen: dict[str, list[str]] = {}
    for r in received:
        seen.setdefault(r["object"], []).append(r["type"])
    several = [types for types in seen.values() if len(types) > 1]
    return len(several), sum(1 for types in several if types.index("customer.updated") <
                             types.index("customer.created"))


def bench(kind: str, args: argparse.Namespace) -> dict[str, float]:
    workdir = Path(tempfile.mkdtemp(prefix=f"paygate-bench-webhooks-{kind}-"))
    url = create_database(kind, workdir)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAYGATE_")}
    # The receiver is on loopback: private targets need the operator's consent (DESIGN §14).
    env.update(PAYGATE_DATABASE_URL=url, PYTHONPATH=str(ROOT), PAYGATE_WEBHOOK_ALLOW_PRIVATE="true")
    rates: dict[str, float] = {}
    try:
        migrated = paygate(env, workdir, "migrate")
        assert migrated.returncode == 0, migrated.stderr
        merchant = asyncio.run(create_merchant_record(load_settings({"PAYGATE_DATABASE_URL": url}), "Bench"))
        receiver = FastReceiver()
        try:
            asyncio.run(seed_endpoint(url, merchant["merchant_id"], receiver.url))
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            print(f"## {kind}: {platform.node()} {os.cpu_count()} CPUs, load {load}, "
                  f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
                  f"{args.events} deliveries per round, receiver on loopback")
            for processes in (1, 2):
                profile = None
                if args.profile and processes == 1:
                    args.profile.mkdir(parents=True, exist_ok=True)
                    profile = args.profile / f"{kind}.txt"
                rates[str(processes)] = round_(env, workdir, url, merchant["merchant_id"], receiver, args.events,
                                               args.objects, processes, profile)
                print(f"{processes} scheduler process{'es' if processes > 1 else ''}: "
                      f"{rates[str(processes)]:8.0f} deliveries/s")
                if profile is not None:
                    top_of_profile(profile)
            body_size = receiver.received[-1]["size"]
            rates["bare"] = bare_sender(receiver.port, args.events, args.connections, body_size)
            print(f"bare sender ({args.connections} keep-alive connections, {body_size}-byte bodies, no database): "
                  f"{rates['bare']:8.0f} requests/s")
            print(f"ratio 1 process / bare sender: {rates['1'] / rates['bare']:.2f}; "
                  f"2 processes / bare sender: {rates['2'] / rates['bare']:.2f}; "
                  f"2 processes / 1 process: {rates['2'] / rates['1']:.2f}")
            receiver.wait_for(0, 10)
            deliveries = [r for r in receiver.received if r["delivery"]]
            dup = len(deliveries) - len({r["delivery"] for r in deliveries})
            several, disordered = in_order(deliveries)
            print(f"duplicate attempts received: {dup}; objects with several events: {several}, "
                  f"delivered out of order: {disordered}")
            print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        finally:
            receiver.close()
    finally:
        drop_database(url)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--objects", type=int, default=1000,
                        help="customers with two events each (ordering per object is checked)")
    parser.add_argument("--database", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--connections", type=int, default=8, help="the bare sender's connections")
    parser.add_argument("--profile", type=Path, default=None)
    parser.add_argument("--serve-receiver", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_receiver:
        serve_receiver()
        return
    for kind in (["sqlite", "postgresql"] if args.database == "both" else [args.database]):
        bench(kind, args)


if __name__ == "__main__":
    main()
