"""What the JSON facade and the gRPC pipeline cost, measured against a bare Starlette handler.

One run starts everything it measures, each in its own process, over one database:

* `paygate serve --only http --only grpc`: the Starlette facade calling the gRPC server over a real channel,
  exactly as in production (the scheduler is left out so that it adds no background load);
* a bare Starlette app under uvicorn (this file with `--serve-baseline`) whose two handlers run the same
  INSERT / SELECT on the same `customers` table through SQLAlchemy async, with no envelope, codec, auth or gRPC.

Then it creates a merchant, warms each target up, and runs `--requests` create-customer calls and as many
get-customer calls (of the customers it created) per target with `--concurrency` workers, in `--rounds` batches
interleaved across the targets. It prints req/s, p50 and p99 per row (6 rows) and the ratios to the baseline.
Every response is checked; a failed request is counted and shown, never timed as a success. Latencies are
client-side, measured with `time.perf_counter`; nothing here asserts a time.

    .venv/bin/python bench/facade.py [--requests 2000] [--concurrency 16] [--database-url postgresql://…/db]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # `tests.harness` when run as `python bench/facade.py`

import grpc  # noqa: E402
import httpx  # noqa: E402
import sqlalchemy as sa  # noqa: E402
from paygate.v1 import customers_pb2, customers_pb2_grpc  # noqa: E402

from server.boot.cli import create_merchant_record  # noqa: E402
from server.config import load_settings  # noqa: E402
from tests.harness import free_port, paygate  # noqa: E402

START_TIMEOUT_SECONDS = 180.0  # start-up under a load of 20 took over 60 s
KEEPALIVE_SECONDS = 1.0  # below uvicorn's timeout_keep_alive (5 s)
OPERATIONS = ("create-customer", "get-customer")
TARGETS = ("facade", "grpc", "baseline")


# ---------------------------------------------------------------------------------------------- the baseline


def baseline_app(database_url: str, merchant_id: str) -> Any:
    """Two handlers doing the SQL of CreateCustomer / GetCustomer: on SQLite through a naive engine (`_NaiveSQLite`),
    on PostgreSQL through paygate's `Database` engine."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from server.customers.models import Customer
    from server.db import Database
    from server.ids import new_id

    table = Customer.__table__  # type: ignore[attr-defined]
    state: dict[str, Any] = {}

    def public(row: Any) -> dict[str, Any]:
        return {"id": row["id"], "object": "customer", "name": row["name"], "email": row["email"],
                "created": row["created"], "updated": row["updated"]}

    async def create(request: Request) -> JSONResponse:
        body = await request.json()
        now = int(time.time())
        row = {"id": new_id("cus"), "merchant_id": merchant_id, "livemode": False,
               "name": str(body.get("name", "")), "email": str(body.get("email", "")), "phone": "", "uuid": "",
               "description": "", "metadata": {}, "addresses": [], "currency": "", "total_payment": 0,
               "total_refund": 0, "provider_a_customer_id": "", "provider_b_customer_id": "",
               "created": now, "updated": now, "deleted_at": None}
        async with state["db"].engine.begin() as conn:
            await conn.execute(sa.insert(table).values(**row))
        return JSONResponse(public(row))

    async def get(request: Request) -> JSONResponse:
        query = sa.select(table).where(table.c.id == request.path_params["id"], table.c.merchant_id == merchant_id,
                                       table.c.livemode.is_(False), table.c.deleted_at.is_(None))
        async with state["db"].engine.begin() as conn:
            row = (await conn.execute(query)).mappings().first()
        if row is None:
            return JSONResponse({"error": "not found"}, status_code=404)
        return JSONResponse(public(row))

    async def ready(request: Request) -> JSONResponse:
        return JSONResponse({"ok": True})

    async def lifespan(app: Starlette) -> Any:
        state["db"] = Database(database_url) if not database_url.startswith("sqlite") else _NaiveSQLite(database_url)
        try:
            yield
        finally:
            await state["db"].close()

    return Starlette(routes=[Route("/customers", create, methods=["POST"]),
                             Route("/customers/{id}", get, methods=["GET"]),
                             Route("/ready", ready, methods=["GET"])],
                     lifespan=asynccontextmanager(lifespan))


class _NaiveSQLite:
    """The baseline's SQLite engine: what a naive monolith has, SQLAlchemy's stock aiosqlite dialect and pool with
    paygate's pragmas (WAL, synchronous=NORMAL, busy_timeout, BEGIN IMMEDIATE for writes), and none of paygate's own
    driver (server/db/sqlite_driver.py: one thread hop per statement) nor its group commit."""

    def __init__(self, url: str) -> None:
        from sqlalchemy.ext.asyncio import create_async_engine

        from server.db.engine import async_url, configure_sqlite

        self.engine = create_async_engine(async_url(url), hide_parameters=True)
        configure_sqlite(self.engine.sync_engine)

    async def close(self) -> None:
        await self.engine.dispose()


def serve_baseline(port: int, database_url: str, merchant_id: str) -> None:
    import uvicorn

    # Served the way `paygate serve` serves the facade: uvicorn's Server on a plain asyncio loop, no access log.
    config = uvicorn.Config(baseline_app(database_url, merchant_id), host="127.0.0.1", port=port,
                            log_level="warning", access_log=False, lifespan="on")
    asyncio.run(uvicorn.Server(config).serve())


# ---------------------------------------------------------------------------------------------- processes


@dataclass
class Processes:
    workdir: Path
    started: list[tuple[str, subprocess.Popen[bytes]]] = field(default_factory=list)

    def launch(self, name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        log = (self.workdir / f"{name}.log").open("wb")
        proc = subprocess.Popen(argv, env=env, cwd=self.workdir, stdout=log, stderr=subprocess.STDOUT)
        self.started.append((name, proc))
        return proc

    def wait_ready(self, name: str, proc: subprocess.Popen[bytes], url: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise SystemExit(f"{name} exited with {proc.returncode}:\n{self.log(name)}")
            try:
                if httpx.get(url, timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise SystemExit(f"{name} did not answer {url} within {START_TIMEOUT_SECONDS:.0f} s:\n{self.log(name)}")

    def log(self, name: str) -> str:
        path = self.workdir / f"{name}.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def stop_all(self) -> None:
        for _, proc in reversed(self.started):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for _, proc in reversed(self.started):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


# ---------------------------------------------------------------------------------------------- server CPU

_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system, every thread) of `pid` and its live descendants (`serve --workers N`'s workers, a
    PostgreSQL server's backends): what that process tree spent, whoever the client is. One pass over /proc."""
    parent: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue  # exited while we looked
            parent[int(entry)] = int(fields[1])
            # utime, stime, and cutime, cstime: what its children that exited and were reaped spent (PostgreSQL's
            # backends of closed connections), which would otherwise vanish from the tree mid-batch.
            ticks[int(entry)] = sum(int(f) for f in fields[11:15])
    if pid not in ticks:
        return 0.0
    children: dict[int, list[int]] = {}
    for child, ppid in parent.items():
        children.setdefault(ppid, []).append(child)
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        total += ticks[current]
        stack.extend(children.get(current, ()))
    return total / _TICKS


def machine_busy_seconds() -> tuple[float, float]:
    """(busy, all) CPU seconds of every core since boot, from /proc/stat: how full the machine was during a batch."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    idle = values[3] + values[4]  # idle, iowait
    return (sum(values) - idle) / _TICKS, sum(values) / _TICKS


def postgres_server_pid(database_url: str) -> int | None:
    """The PostgreSQL server process (postmaster) behind `database_url`, when it runs on this machine: the parent of
    our own backend. Its tree's CPU is what the database spent on a batch (any other client of the same server
    counts too, so run nothing else against it)."""
    from server.db.engine import sync_url

    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.connect() as conn:
            backend = int(conn.execute(sa.text("SELECT pg_backend_pid()")).scalar_one())
    finally:
        engine.dispose()
    try:
        return int(Path(f"/proc/{backend}/stat").read_text().rpartition(")")[2].split()[1])
    except OSError:
        return None  # a server on another machine: its CPU is not ours to read


# ---------------------------------------------------------------------------------------------- measuring


@dataclass
class Row:
    target: str
    operation: str
    latencies: list[float]  # seconds, successful requests only
    elapsed: float  # wall time of the whole batch
    errors: int = 0
    first_error: str = ""
    cpu: float = 0.0  # seconds of CPU the target's server spent on the batch (cpu_seconds)

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.elapsed if self.elapsed > 0 else 0.0

    def percentile(self, q: float) -> float:
        """Nearest-rank percentile in milliseconds."""
        if not self.latencies:
            return math.nan
        ordered = sorted(self.latencies)
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)] * 1000


Call = Callable[[int], Awaitable[str]]  # request number → the customer id in the response


async def run_batch(target: str, operation: str, call: Call, count: int, concurrency: int) -> Row:
    row = Row(target, operation, [], 0.0)
    next_index = 0

    async def worker() -> None:
        nonlocal next_index
        while next_index < count:
            i = next_index
            next_index += 1
            started = time.perf_counter()
            try:
                await call(i)
            except Exception as e:  # counted and shown; a failure is never timed as a success
                row.errors += 1
                row.first_error = row.first_error or f"{type(e).__name__}: {e}"[:300]
                continue
            row.latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    row.elapsed = time.perf_counter() - started
    return row


def _check_http(response: httpx.Response, enveloped: bool) -> str:
    if response.status_code != 200:
        raise RuntimeError(f"HTTP {response.status_code}: {response.text[:200]}")
    body = response.json()
    data = body["data"] if enveloped else body
    if enveloped and body["code"] != 0:
        raise RuntimeError(f"envelope code {body['code']}: {body['msg']}")
    if not str(data.get("id", "")).startswith("cus_"):
        raise RuntimeError(f"unexpected body {body!r}")
    return str(data["id"])


async def measure(urls: dict[str, str], secret_key: str, requests: int, concurrency: int,
                  warmup: int, rounds: int, pids: dict[str, int]) -> list[Row]:
    # Idle connections are dropped by the client after 1 s, well before uvicorn closes them (after 5 s): with both
    # at 5 s (httpx's default), a connection idle while the other targets ran could be reused at the instant the
    # server closed it, and the request failed with ReadError (3 of 1,500 creates in one PostgreSQL run).
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency,
                          keepalive_expiry=KEEPALIVE_SECONDS)
    facade = httpx.AsyncClient(base_url=urls["facade"], auth=httpx.BasicAuth(secret_key, ""), limits=limits,
                               timeout=60)
    bare = httpx.AsyncClient(base_url=urls["baseline"], limits=limits, timeout=60)
    channel = grpc.aio.insecure_channel(urls["grpc"])
    stub = customers_pb2_grpc.CustomerServiceStub(channel)
    metadata = (("authorization", f"Bearer {secret_key}"),)

    def body(target: str, tag: str) -> dict[str, str]:
        return {"name": f"Bench {target} {tag}", "email": f"bench-{target}-{tag}@example.com"}

    async def facade_create(tag: str) -> str:
        return _check_http(await facade.post("/v1/customers", json=body("facade", tag)), enveloped=True)

    async def facade_get(customer_id: str) -> str:
        return _check_http(await facade.get(f"/v1/customers/{customer_id}"), enveloped=True)

    async def grpc_create(tag: str) -> str:
        reply = await stub.CreateCustomer(customers_pb2.CreateCustomerRequest(**body("grpc", tag)), metadata=metadata,
                                          timeout=60)
        return str(reply.customer.id)

    async def grpc_get(customer_id: str) -> str:
        reply = await stub.GetCustomer(customers_pb2.GetCustomerRequest(id=customer_id), metadata=metadata,
                                       timeout=60)
        return str(reply.customer.id)

    async def bare_create(tag: str) -> str:
        return _check_http(await bare.post("/customers", json=body("baseline", tag)), enveloped=False)

    async def bare_get(customer_id: str) -> str:
        return _check_http(await bare.get(f"/customers/{customer_id}"), enveloped=False)

    creators: dict[str, Callable[[str], Awaitable[str]]] = {
        "facade": facade_create, "grpc": grpc_create, "baseline": bare_create}
    getters: dict[str, Callable[[str], Awaitable[str]]] = {
        "facade": facade_get, "grpc": grpc_get, "baseline": bare_get}

    def keeping(target: str, into: list[str], tag: str) -> Call:
        async def call(i: int) -> str:
            customer_id = await creators[target](f"{tag}{i}")
            into.append(customer_id)
            return customer_id
        return call

    def reading(target: str, pool: list[str]) -> Call:
        async def call(i: int) -> str:
            wanted = pool[i % len(pool)]
            if (got := await getters[target](wanted)) != wanted:
                raise RuntimeError(f"asked for {wanted}, got {got}")
            return got
        return call

    def checked(row: Row) -> Row:
        if row.errors:
            raise SystemExit(f"{row.target} {row.operation}: {row.errors} failed; first: {row.first_error}")
        return row

    created: dict[str, list[str]] = {t: [] for t in TARGETS}
    totals = {(t, op): Row(t, op, [], 0.0) for t in TARGETS for op in OPERATIONS}
    try:
        # Warm up connections, pools and caches (the API key cache among them); not timed, but checked.
        for target in TARGETS:
            warm: list[str] = []
            checked(await run_batch(target, "warm-up create", keeping(target, warm, "w"), warmup, concurrency))
            checked(await run_batch(target, "warm-up get", reading(target, warm), warmup, concurrency))
        # Round-robin over the targets, in a rotating order, so that a burst of load from anything else on the
        # machine (or the table growing) falls on every target alike rather than on whichever ran last.
        for r in range(rounds):
            count = requests // rounds + (1 if r < requests % rounds else 0)
            order = TARGETS[r % len(TARGETS):] + TARGETS[:r % len(TARGETS)]
            for op in OPERATIONS:
                for target in order:
                    call = keeping(target, created[target], f"r{r}-") if op == OPERATIONS[0] else \
                        reading(target, created[target])
                    cpu_before = cpu_seconds(pids[target])
                    batch = await run_batch(target, op, call, count, concurrency)
                    total = totals[(target, op)]
                    total.cpu += cpu_seconds(pids[target]) - cpu_before
                    total.latencies += batch.latencies
                    total.elapsed += batch.elapsed
                    total.errors += batch.errors
                    total.first_error = total.first_error or batch.first_error
    finally:
        await facade.aclose()
        await bare.aclose()
        await channel.close()
    rows = [totals[(t, op)] for t in TARGETS for op in OPERATIONS]
    return rows


# ---------------------------------------------------------------------------------------------- measuring with wrk


@dataclass
class WrkRow:
    """A row measured by wrk: its counts summed over the rounds, p50 / p99 the mean of the rounds' (wrk reports
    percentiles, not the latencies)."""

    target: str
    operation: str
    ok: int = 0
    elapsed: float = 0.0
    errors: int = 0
    first_error: str = ""
    cpu: float = 0.0
    database_cpu: float = math.nan  # seconds the PostgreSQL server spent (nan on SQLite: it is inside the server)
    client_cpu: float = 0.0  # seconds wrk spent
    busy: float = 0.0  # seconds of CPU the whole machine spent (all cores), and the seconds it had
    capacity: float = 0.0
    p50s: list[float] = field(default_factory=list)
    p99s: list[float] = field(default_factory=list)

    @property
    def latencies(self) -> range:  # only its length is read by report()
        return range(self.ok)

    @property
    def rate(self) -> float:
        return self.ok / self.elapsed if self.elapsed > 0 else 0.0

    def percentile(self, q: float) -> float:
        values = self.p50s if q <= 0.5 else self.p99s
        return sum(values) / len(values) if values else math.nan


_WRK_CHECK = """
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) bad = 0 end
function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"id":"cus_', 1, true) then bad = bad + 1 end
end
function done(summary, latency, requests)
  local b = 0
  for _, t in ipairs(threads) do b = b + t:get("bad") end
  io.write(string.format("BAD %d\\n", b))
end
"""


def _lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _wrk_script(workdir: Path, name: str, *, method: str, path: str | None, ids: list[str], prefix: str,
                headers: dict[str, str], body: str | None) -> Path:
    lines = [f"wrk.method = {_lua_string(method)}"]
    for key, value in headers.items():
        lines.append(f"wrk.headers[{_lua_string(key)}] = {_lua_string(value)}")
    if body is not None:
        lines.append(f"wrk.body = {_lua_string(body)}")
    if path is not None:
        lines.append(f"wrk.path = {_lua_string(path)}")
    else:  # get: the created customers in turn
        lines.append("ids = {" + ",".join(_lua_string(i) for i in ids) + "}")
        lines.append("counter = 0")
        lines.append("request = function() counter = counter + 1; "
                     f"return wrk.format(nil, {_lua_string(prefix)} .. ids[(counter % #ids) + 1]) end")
    script = workdir / f"{name}.lua"
    script.write_text("\n".join(lines) + "\n" + _WRK_CHECK)
    return script


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def _wrk_ms(text: str) -> float:
    for unit in ("us", "ms", "s"):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * _UNITS[unit]
    return float(text)


def run_wrk(url: str, script: Path, seconds: float, connections: int) -> tuple[int, float, int, str, float, float]:
    """ok requests, elapsed s, errors, first error, p50 ms, p99 ms of one wrk run (one thread: the client's CPU
    stays small)."""
    done = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds:g}s", "--latency", "-s", str(script), url],
                          capture_output=True, text=True, timeout=seconds + 60)
    out = done.stdout
    if "BAD " not in out:
        # wrk runs its default `GET /` when the script does not load, and says so only on stderr: never time that.
        raise SystemExit(f"wrk did not run the script {script}: {done.stderr.strip() or out.strip()}")
    total = elapsed = 0.0
    bad = socket_errors = 0
    p50 = p99 = math.nan
    for line in out.splitlines():
        words = line.split()
        if " requests in " in line:
            total, elapsed = float(words[0]), _wrk_ms(words[3].rstrip(",")) / 1000
        elif words[:1] == ["50%"]:
            p50 = _wrk_ms(words[1])
        elif words[:1] == ["99%"]:
            p99 = _wrk_ms(words[1])
        elif words[:1] == ["BAD"]:
            bad = int(words[1])
        elif line.strip().startswith("Socket errors:"):
            socket_errors = sum(int(w.rstrip(",")) for w in words if w.rstrip(",").isdigit())
    errors = bad + socket_errors
    first = f"{bad} bad answers, {socket_errors} socket errors" if errors else ""
    return int(total) - bad, elapsed, errors, first, p50, p99


def measure_wrk(urls: dict[str, str], secret_key: str, seconds: float, connections: int, rounds: int,
                warmup: int, workdir: Path, pids: dict[str, int], database_pid: int | None) -> list[WrkRow]:
    """create-customer and get-customer through each facade target (one per worker count) and the baseline with wrk
    (HTTP only: wrk speaks no gRPC), interleaved over `rounds`, each batch `seconds` long. Besides the target's
    server, each batch records what the database server, wrk and the whole machine spent."""
    import base64
    import resource

    token = base64.b64encode(f"{secret_key}:".encode()).decode()
    targets = tuple(urls)
    enveloped = {t: t != "baseline" for t in targets}
    paths = {t: "/v1/customers" if enveloped[t] else "/customers" for t in targets}
    headers = {t: {"Content-Type": "application/json", "Authorization": f"Basic {token}"} if enveloped[t]
               else {"Content-Type": "application/json"} for t in targets}
    ids: dict[str, list[str]] = {}
    with httpx.Client(timeout=60) as client:  # customers to read, made before the clock starts
        for target in targets:
            ids[target] = []
            for i in range(max(warmup, 1)):
                answer = client.post(urls[target] + paths[target], headers=headers[target],
                                     json={"name": f"Bench {target} w{i}", "email": f"w{i}@example.com"})
                ids[target].append(_check_http(answer, enveloped=enveloped[target]))
    scripts = {}
    for target in targets:
        body = f'{{"name": "Bench wrk {target}", "email": "bench-wrk@example.com"}}'
        scripts[(target, "create-customer")] = _wrk_script(workdir, f"{target}-create", method="POST",
                                                           path=paths[target], ids=[], prefix="",
                                                           headers=headers[target], body=body)
        scripts[(target, "get-customer")] = _wrk_script(workdir, f"{target}-get", method="GET", path=None,
                                                        ids=ids[target], prefix=paths[target] + "/",
                                                        headers=headers[target], body=None)
    for target in targets:  # warm-up, not counted
        for op in OPERATIONS:
            run_wrk(urls[target], scripts[(target, op)], 1, connections)

    def wrk_cpu() -> float:  # wrk is the only child waited for during a batch
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    totals = {(t, op): WrkRow(t, op) for t in targets for op in OPERATIONS}
    for r in range(rounds):
        order = targets[r % len(targets):] + targets[:r % len(targets)]
        for op in OPERATIONS:
            for target in order:
                cpu_before, client_before = cpu_seconds(pids[target]), wrk_cpu()
                database_before = cpu_seconds(database_pid) if database_pid else math.nan
                busy_before, capacity_before = machine_busy_seconds()
                ok, elapsed, errors, first, p50, p99 = run_wrk(urls[target], scripts[(target, op)], seconds,
                                                               connections)
                busy_after, capacity_after = machine_busy_seconds()
                row = totals[(target, op)]
                row.cpu += cpu_seconds(pids[target]) - cpu_before
                row.client_cpu += wrk_cpu() - client_before
                if database_pid:
                    spent = cpu_seconds(database_pid) - database_before
                    row.database_cpu = spent if math.isnan(row.database_cpu) else row.database_cpu + spent
                row.busy += busy_after - busy_before
                row.capacity += capacity_after - capacity_before
                row.ok += ok
                row.elapsed += elapsed
                row.errors += errors
                row.first_error = row.first_error or first
                row.p50s.append(p50)
                row.p99s.append(p99)
    return [totals[(t, op)] for t in targets for op in OPERATIONS]


# ---------------------------------------------------------------------------------------------- reporting


def report(rows: list[Any], context: str) -> str:
    lines = [context, ""]
    header = (f"{'target':<10} {'operation':<16} {'ok':>7} {'errors':>6} {'req/s':>9} {'p50 ms':>9} {'p99 ms':>9} "
              f"{'server CPU ms/req':>18}")
    lines += [header, "-" * len(header)]
    for r in rows:
        lines.append(f"{r.target:<10} {r.operation:<16} {len(r.latencies):>7} {r.errors:>6} {r.rate:>9.1f} "
                     f"{r.percentile(0.50):>9.2f} {r.percentile(0.99):>9.2f} {_cpu_per_request(r):>18.3f}")
    by = {(r.target, r.operation): r for r in rows}
    measured = list(dict.fromkeys(r.target for r in rows if r.target != "baseline"))

    def ratio(a: float, b: float) -> str:
        return f"{a / b:.2f}x" if b and not math.isnan(a) and not math.isnan(b) else "n/a"

    def ratio_lines(reference: str, compared: list[str]) -> list[str]:
        out = [f"{'operation':<16} {'ratio':<24} {'req/s':>7} {'p50':>7} {'p99':>7}"]
        out.append("-" * len(out[0]))
        for op in OPERATIONS:
            base = by[(reference, op)]
            for target in compared:
                r = by[(target, op)]
                out.append(f"{op:<16} {target + '/' + reference:<24} {ratio(r.rate, base.rate):>7} "
                           f"{ratio(r.percentile(0.5), base.percentile(0.5)):>7} "
                           f"{ratio(r.percentile(0.99), base.percentile(0.99)):>7}")
        return out

    lines += ["", "ratios to the baseline (req/s: lower is slower; latency: higher is slower)", ""]
    lines += ratio_lines("baseline", measured)
    scaled = [t for t in measured if t.startswith("facade-")]
    if len(scaled) > 1:
        lines += ["", f"ratios to {scaled[0]} (more workers on the same cores)", ""]
        lines += ratio_lines(scaled[0], scaled[1:])
    if rows and isinstance(rows[0], WrkRow):
        lines += ["", "where the machine's CPU went, per request (ms), and what its cores could serve at that cost", ""]
        header = (f"{'target':<12} {'operation':<16} {'server':>7} {'database':>9} {'wrk':>6} {'sum':>7} "
                  f"{'machine busy':>13} {'ceiling req/s':>14}")
        lines += [header, "-" * len(header)]
        cores = os.cpu_count() or 1
        for r in rows:
            done = max(r.ok, 1)
            server, client = r.cpu * 1000 / done, r.client_cpu * 1000 / done
            database = r.database_cpu * 1000 / done
            spent = server + client + (0.0 if math.isnan(database) else database)
            busy = 100 * r.busy / r.capacity if r.capacity else math.nan
            shown = "n/a" if math.isnan(database) else f"{database:.3f}"
            lines.append(f"{r.target:<12} {r.operation:<16} {server:>7.3f} {shown:>9} {client:>6.3f} "
                         f"{spent:>7.3f} {busy:>12.0f}% {cores * 1000 / spent:>14.1f}")
        lines.append("(database: the PostgreSQL server's processes; n/a on SQLite, whose work is inside the server. "
                     "ceiling: all cores at this CPU per request, if nothing else ran)")
    if any(r.target == "grpc" for r in rows):
        lines += ["", "server CPU per request, gRPC / facade (what the facade's server-bound throughput is to direct "
                      "gRPC's, whatever the clients cost)", ""]
        for op in OPERATIONS:
            facade_cpu, grpc_cpu = _cpu_per_request(by[("facade", op)]), _cpu_per_request(by[("grpc", op)])
            lines.append(f"{op:<16} {grpc_cpu / facade_cpu:.2f}x" if facade_cpu > 0 else f"{op:<16} n/a")
    failed = [r for r in rows if r.errors]
    for r in failed:
        lines.append(f"\n{r.target} {r.operation}: {r.errors} failed requests; first: {r.first_error}")
    return "\n".join(lines)


def _cpu_per_request(row: Any) -> float:
    done = len(row.latencies)
    return row.cpu * 1000 / done if done else math.nan


def _worker_counts(text: str) -> list[int]:
    counts = [int(part) for part in text.split(",")] if text.replace(",", "").isascii() else []
    if not counts or min(counts) < 1 or len(set(counts)) != len(counts):
        raise argparse.ArgumentTypeError("a worker count, or distinct counts such as 1,2")
    return counts


def _safe_url(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    if "@" in rest:
        creds, _, host = rest.rpartition("@")
        rest = f"{creds.split(':')[0]}:***@{host}" if ":" in creds else f"{creds}@{host}"
    return f"{scheme}{sep}{rest}"


# ---------------------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000, help="requests per row (default 2000)")
    parser.add_argument("--concurrency", type=int, default=16, help="concurrent workers (default 16)")
    parser.add_argument("--database-url", default="",
                        help="database for paygate and the baseline (default: a temporary SQLite file); "
                             "a PostgreSQL URL is migrated and gets the benchmark's customers")
    parser.add_argument("--warmup", type=int, default=100, help="untimed requests per target first (default 100)")
    parser.add_argument("--rounds", type=int, default=4,
                        help="split each row into this many batches, interleaved across the targets (default 4)")
    parser.add_argument("--log-level", default="INFO", help="paygate's PAYGATE_LOG_LEVEL (default INFO, as deployed)")
    parser.add_argument("--workers", type=_worker_counts, default=[1],
                        help="paygate serve --workers (default 1); with --client wrk a list such as 1,2 starts one "
                             "server per count and interleaves them in one run")
    parser.add_argument("--facade-channel", choices=("in_process", "grpc"), default="in_process",
                        help="how the facade reaches the servicers (default in_process, as deployed)")
    parser.add_argument("--client", choices=("httpx", "wrk"), default="httpx",
                        help="httpx (default; also times direct gRPC) or wrk (one thread, --concurrency connections, "
                             "HTTP rows only: a client that leaves the CPU to the servers)")
    parser.add_argument("--seconds", type=float, default=5.0, help="with --client wrk: seconds per batch (5)")
    parser.add_argument("--serve-baseline", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--merchant-id", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.serve_baseline:
        serve_baseline(args.serve_baseline, args.database_url, args.merchant_id)
        return 0
    if min(args.requests, args.concurrency, args.warmup, args.rounds) < 1:
        parser.error("--requests, --concurrency, --warmup and --rounds must be at least 1")
    if len(args.workers) > 1 and args.client != "wrk":
        parser.error("several --workers counts need --client wrk")

    workdir = Path(tempfile.mkdtemp(prefix="paygate-bench-"))
    database_url = args.database_url or f"sqlite:///{workdir / 'bench.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAYGATE_")}
    baseline_port = free_port()
    env.update(PAYGATE_DATABASE_URL=database_url, PAYGATE_CHECKOUT_URL="https://checkout.bench",
               PAYGATE_LOG_LEVEL=args.log_level, PYTHONPATH=str(ROOT),
               # The limiter stays in the pipeline (its cost is measured) with a budget the bench never exhausts.
               PAYGATE_RATE_LIMIT_PER_SECOND="100000", PAYGATE_RATE_LIMIT_BURST="200000")
    if args.client == "wrk" and shutil.which("wrk") is None:
        raise SystemExit("--client wrk needs Debian's wrk on the PATH: apt-get install wrk")
    processes = Processes(workdir)
    try:
        migrated = paygate(env, workdir, "migrate", timeout=START_TIMEOUT_SECONDS)
        if migrated.returncode != 0:
            raise SystemExit(f"paygate migrate failed:\n{migrated.stderr}")
        merchant = asyncio.run(create_merchant_record(load_settings({"PAYGATE_DATABASE_URL": database_url}),
                                                      "Bench merchant"))
        env["PAYGATE_FACADE_CHANNEL"] = args.facade_channel
        urls: dict[str, str] = {}
        pids: dict[str, int] = {}
        for count in args.workers:  # one server per worker count, on its own ports, over the same database
            name = "facade" if len(args.workers) == 1 else f"facade-{count}w"
            http_port, grpc_port = free_port(), free_port()
            served = dict(env, PAYGATE_HTTP_ADDR=f"127.0.0.1:{http_port}", PAYGATE_GRPC_ADDR=f"127.0.0.1:{grpc_port}")
            serve = processes.launch(name, [sys.executable, "-m", "server.boot.cli", "serve", "--only", "http",
                                            "--only", "grpc", "--workers", str(count)], served)
            processes.wait_ready(name, serve, f"http://127.0.0.1:{http_port}/healthz")
            urls[name], pids[name] = f"http://127.0.0.1:{http_port}", serve.pid
            if len(args.workers) == 1:
                urls["grpc"], pids["grpc"] = f"127.0.0.1:{grpc_port}", serve.pid
        baseline = processes.launch("baseline", [sys.executable, str(Path(__file__).resolve()),
                                                 "--serve-baseline", str(baseline_port),
                                                 "--database-url", database_url,
                                                 "--merchant-id", merchant["merchant_id"]], env)
        processes.wait_ready("baseline", baseline, f"http://127.0.0.1:{baseline_port}/ready")
        urls["baseline"], pids["baseline"] = f"http://127.0.0.1:{baseline_port}", baseline.pid
        database_pid = postgres_server_pid(database_url) if database_url.startswith("postgresql") else None
        load_before = os.getloadavg()[0]
        rows: list[Any]
        if args.client == "wrk":
            rows = measure_wrk({t: u for t, u in urls.items() if t != "grpc"}, merchant["test"]["secret_key"],
                               args.seconds, args.concurrency, args.rounds, args.warmup, workdir, pids, database_pid)
        else:
            rows = asyncio.run(measure(urls, merchant["test"]["secret_key"], args.requests, args.concurrency,
                                       args.warmup, min(args.rounds, args.requests), pids))
        load_after = os.getloadavg()[0]
    finally:
        processes.stop_all()
        shutil.rmtree(workdir, ignore_errors=True)

    client = (f"wrk (1 thread), {args.concurrency} connections, {args.seconds:g} s per batch" if args.client == "wrk"
              else f"httpx, {args.requests} requests per row, {args.concurrency} concurrent workers")
    context = (f"paygate bench: {client}, "
               f"{args.warmup} warm-up requests per target, {min(args.rounds, args.requests)} interleaved rounds\n"
               f"database {_safe_url(database_url) if args.database_url else 'temporary SQLite file'}, "
               f"paygate log level {args.log_level}, {','.join(map(str, args.workers))} paygate worker(s), "
               f"facade channel {args.facade_channel}, Python {platform.python_version()}, "
               f"{os.cpu_count()} CPUs shared by client, paygate and baseline "
               f"(1-min load average {load_before:.2f} before, {load_after:.2f} after)")
    print(report(rows, context))
    return 1 if any(r.errors for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
