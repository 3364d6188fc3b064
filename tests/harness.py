"""A real paygate: `paygate serve` in a subprocess on free ports, over a fresh SQLite file or PostgreSQL database."""

from __future__ import annotations

import asyncio
import atexit
import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

from server.boot.cli import create_merchant_record
from server.config import load_settings
from server.rails.evm import devchain, solidity
from server.rails.evm.devchain import DevChain
from server.rails.evm.solidity import Compiled
from server.rails.hd import new_mnemonic
from server.tls import client_context

# One TLS context for every test client: httpx builds a new one per client by loading certifi's CA bundle, about 40 ms
# of CPU, which was a quarter of a test process's CPU (the suite's clients talk plain HTTP on loopback anyway).
TLS = client_context()  # the server's own shared one

PG_ADMIN_URL = os.environ.get("PAYGATE_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
TEST_NETWORKS = """
[[networks]]
id = "ETH-TEST"
rpc_url = "http://127.0.0.1:8545"

[[networks.assets]]
coin = "ETH"
display_name = "Test Ether"
decimals = 18

[[networks.assets]]
coin = "USDT"
display_name = "Test Tether USD"
decimals = 6
contract_address = "0x5FbDB2315678afecb367f032d93F642f64180aa3"

[[networks.assets]]
coin = "USDC"
display_name = "Test USD Coin"
decimals = 6
contract_address = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"
"""


_test_node: DevChain | None = None


def compiled_token() -> Compiled:
    """The test token compiled once per machine and source (solcjs takes 15 s on a loaded machine, counted in the
    first test's timeout): kept in the temporary directory under the hash of the source."""
    source = (solidity.CONTRACTS / "TestToken.sol").read_bytes()
    cached = Path(tempfile.gettempdir()) / f"paygate-testtoken-{hashlib.sha256(source).hexdigest()[:16]}.json"
    try:
        saved = json.loads(cached.read_text())
        return Compiled(abi=saved["abi"], bytecode=saved["bytecode"])
    except (OSError, ValueError, KeyError):
        pass
    compiled = solidity.compile_contract()
    partial = cached.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps({"abi": compiled.abi, "bytecode": compiled.bytecode}))
    partial.replace(cached)  # atomic: a concurrent reader sees the whole file or none
    return compiled


def node_networks() -> str:
    """TEST_NETWORKS with ETH-TEST's rpc_url on a real node: a dev chain (Anvil with the test tokens, deployed at the
    addresses above) that this test process starts on first use and keeps until it exits. An asset is payable only
    while its network's RPC answers (DESIGN §12), so a service must have a node behind its catalogue to open payment
    attempts; no test sends transactions to this one (tests that pay use tests/chain.py's `chain`)."""
    global _test_node
    if _test_node is None or _test_node.process.poll() is not None:
        _test_node = devchain.start(free_port(), compiled=compiled_token())
        atexit.register(_test_node.stop)
    return TEST_NETWORKS.replace("http://127.0.0.1:8545", _test_node.rpc_url)


# The BIP-39 test vector (not Anvil's mnemonic, whose accounts are the funded payers) and a fixed server secret:
# every process of a test run derives the same addresses and client secrets.
TEST_MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
TEST_SECRET_KEY = "0123456789abcdef" * 4
TEST_ENCRYPTION_KEY = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="  # a Fernet key: base64 of 32 bytes


# The scheduler's passes that a payment, a sweep or a refund waits for, run every half second instead of every 3 to 5:
# most of a chain test's time was waiting for the next pass (a treasury file took 137 s at 1 s, 104 s at 0.5 s, 99 s
# at 0.25 s, with the service's CPU the same).
TEST_JOB_SECONDS = {"watch_chains": 0.5, "send_sweeps": 0.5, "send_refunds": 0.5, "send_treasury_transfers": 0.5,
                    "expire_payment_intents": 1, "renew_subscriptions": 1}
# A service over the static test catalogue never sees a payment on chain (its node gets no transactions), so its chain,
# sweep, refund and transfer passes keep their production intervals: at half a second, idle, they were most of an idle
# service's CPU (5 % each, against 0.3 % without a scheduler), and a full run keeps about ten services alive at once.
STATIC_CATALOGUE_JOB_SECONDS = {"expire_payment_intents": 1, "renew_subscriptions": 1}


def _listener_ports() -> range:
    """Ports below the kernel's range for outgoing connections (ip_local_port_range): a port the kernel handed out
    (bind to 0) could be taken by any client socket (PostgreSQL, httpx, web3) before the service bound it, which
    failed a CI run with "Address already in use"; below that range only listeners bind. Each xdist worker draws from
    its own slice, so two workers never pick the same port."""
    try:
        first_ephemeral = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        first_ephemeral = 32768
    low, high = 10_000, max(first_ephemeral, 12_000)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:]
    index, count = (int(worker) if worker.isdigit() else 0), int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    size = (high - low) // max(count, 1)
    return range(low + index * size, low + (index + 1) * size)


_PORTS = _listener_ports()
# A random start: another test run on the same machine (a developer's, beside CI) walks its slice elsewhere.
_next_port = secrets.randbelow(len(_PORTS))


def free_port() -> int:
    """A loopback port nothing listens on now, never the same twice in this process."""
    global _next_port
    for _ in range(len(_PORTS)):
        port = _PORTS[_next_port % len(_PORTS)]
        _next_port += 1
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {_PORTS}")


def _pg_url(database: str) -> str:
    return PG_ADMIN_URL.rsplit("/", 1)[0] + "/" + database


# The service runs this checkout's code and generated stubs (proto/), whichever checkout the .venv was installed from.
_ROOT = Path(__file__).parents[1]
_PYTHONPATH = os.pathsep.join((str(_ROOT / "proto"), str(_ROOT)))


def _new_pg_database(template: str = "") -> str:
    """A new PostgreSQL database's URL: empty, or a copy of the database `template` names."""
    name = f"paygate_test_{secrets.token_hex(4)}"
    copy = f' TEMPLATE "{template}"' if template else ""
    engine = sa.create_engine(PG_ADMIN_URL.replace("postgresql://", "postgresql+psycopg://"),
                              isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"{copy}'))
    engine.dispose()
    return _pg_url(name)


def create_database(kind: str, workdir: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:///{workdir / 'paygate.db'}"
    return _new_pg_database()


def drop_database(url: str) -> None:
    if not url.startswith("postgresql"):
        return
    name = url.rsplit("/", 1)[1]
    engine = sa.create_engine(PG_ADMIN_URL.replace("postgresql://", "postgresql+psycopg://"),
                              isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    engine.dispose()


# A database at the newest migration, made once per process and kind: each service's is a copy of it (a file copy,
# `CREATE DATABASE … TEMPLATE`), not a `paygate migrate` run of every migration again.
_templates: dict[str, str] = {}


def _template(kind: str) -> str:
    from server.db import migrate

    if kind not in _templates:
        folder = Path(tempfile.mkdtemp(prefix="paygate-template-"))
        url = create_database(kind, folder)
        migrate.upgrade(url)  # its engine is disposed: PostgreSQL copies a template nobody is connected to
        atexit.register(drop_database, url)
        _templates[kind] = url
    return _templates[kind]


def migrated_copy(kind: str, workdir: Path) -> str:
    """A fresh database of `kind` at the newest migration (a copy of this process's template)."""
    template = _template(kind)
    if kind == "sqlite":
        source = Path(template.removeprefix("sqlite:///"))
        target = workdir / "paygate.db"
        for suffix in ("", "-wal"):  # the file and, were one left, its WAL (SQLite rebuilds the -shm index)
            if source.with_name(source.name + suffix).exists():
                shutil.copyfile(source.with_name(source.name + suffix), target.with_name(target.name + suffix))
        return f"sqlite:///{target}"
    return _new_pg_database(template.rsplit("/", 1)[1])


def migrated_database(kind: str, workdir: Path) -> Iterator[str]:
    """A fresh database of `kind` at the newest migration, dropped afterwards: `yield from` it in a fixture."""
    url = migrated_copy(kind, workdir)
    yield url
    drop_database(url)


@dataclass
class Service:
    kind: str
    database_url: str
    http_url: str
    grpc_addr: str
    env: dict[str, str]
    workdir: Path
    process: subprocess.Popen[bytes] | None = None
    # When set, `paygate serve` runs with tests/clock.py's clock over this file: the test moves its time forward.
    clock_file: Path | None = None

    def create_merchant(self, name: str = "Test merchant") -> dict[str, Any]:
        # The same settings as the server's, so that keys derived from the wallet (treasury) agree with it.
        settings = load_settings({k: v for k, v in self.env.items() if k.startswith("PAYGATE_")})
        return asyncio.run(create_merchant_record(settings, name))

    def log(self) -> str:
        path = self.workdir / "serve.log"
        return path.read_text() if path.exists() else ""


def log_lines(service: Service, **fields: Any) -> list[dict[str, Any]]:
    """The service's JSON log lines that carry every one of `fields`."""
    lines = []
    for line in service.log().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and all(entry.get(k) == v for k, v in fields.items()):
            lines.append(entry)
    return lines


def paygate(env: dict[str, str], workdir: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server.boot.cli", *args], env=env, cwd=workdir, text=True,
                          capture_output=True, timeout=timeout)


def start(kind: str, workdir: Path, *, only: tuple[str, ...] = (), networks_file: Path | None = None,
          config: str = "", extra_env: dict[str, str] | None = None, clock_file: Path | None = None) -> Service:
    """`only`: the parts to run (`paygate serve --only …`); all three when empty. `networks_file`: a real chain's
    (tests/chain.py) instead of the static test catalogue (`node_networks()`). `config`: paygate.toml content.
    `clock_file`: the service's clock is the wall clock plus the seconds written in this file (tests/clock.py)."""
    service = prepare(kind, workdir, networks_file=networks_file, config=config, extra_env=extra_env,
                      clock_file=clock_file)
    return launch(service, only)


def prepare(kind: str, workdir: Path, *, networks_file: Path | None = None, config: str = "",
            extra_env: dict[str, str] | None = None, clock_file: Path | None = None,
            database_url: str = "") -> Service:
    """`start`'s service, not launched yet. `database_url`: a database of the test's own instead of a fresh copy at
    the newest migration."""
    workdir.mkdir(parents=True, exist_ok=True)
    job_seconds = TEST_JOB_SECONDS
    if networks_file is None:
        networks_file, job_seconds = workdir / "networks.toml", STATIC_CATALOGUE_JOB_SECONDS
        networks_file.write_text(node_networks())
    if config:
        (workdir / "paygate.toml").write_text(config)
    url = database_url or migrated_copy(kind, workdir)
    http_port, grpc_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAYGATE_")}
    env.update(PAYGATE_DATABASE_URL=url, PAYGATE_HTTP_ADDR=f"127.0.0.1:{http_port}",
               PAYGATE_GRPC_ADDR=f"127.0.0.1:{grpc_port}", PAYGATE_NETWORKS=str(networks_file),
               PAYGATE_CHECKOUT_URL="https://checkout.test", PYTHONPATH=_PYTHONPATH,
               PAYGATE_WALLET_MNEMONIC=TEST_MNEMONIC, PAYGATE_SECRET_KEY=TEST_SECRET_KEY,
               # Test receivers listen on loopback (DESIGN §14: private targets need the operator's consent).
               PAYGATE_WEBHOOK_ALLOW_PRIVATE="true", PAYGATE_ENCRYPTION_KEY=TEST_ENCRYPTION_KEY,
               # Test mode's own seed, fresh per service: runs sharing one chain never share deposit addresses.
               PAYGATE_WALLET_TEST_MNEMONIC=new_mnemonic(),
               # Reflection is off by default when live secrets are configured; the suite lists services.
               PAYGATE_GRPC_REFLECTION="true",
               # Limits the normal suite never reaches; tests of the limits start a service with small ones.
               PAYGATE_RATE_LIMIT_BURST="100000", PAYGATE_RATE_LIMIT_CHECKOUT_BURST="100000",
               PAYGATE_RATE_LIMIT_IP_BURST="100000",
               # The suite runs several services per xdist worker against one PostgreSQL (max_connections 100 on
               # this machine), and a full run with 10 kept per service once ran out ("too many clients"): 4 here.
               PAYGATE_DATABASE_POOL_SIZE="4", PAYGATE_JOB_SECONDS=json.dumps(job_seconds),
               # The live secrets above make a live deployment, which refuses to serve without SMTP (DESIGN §16).
               PAYGATE_SMTP_URL=mail_sink_url())
    env.update(extra_env or {})
    return Service(kind, url, f"http://127.0.0.1:{http_port}", f"127.0.0.1:{grpc_port}", env, workdir,
                   clock_file=clock_file)


_mail_sink: Any = None


def mail_sink_url() -> str:
    """A real SMTP server (aiosmtpd on loopback) that accepts every message and keeps none: the `smtp_url` of the
    services whose test reads no mail (tests/mail.py's `Mailbox` is the one that keeps them). One per test process,
    started on first use."""
    global _mail_sink
    if _mail_sink is None:
        from aiosmtpd.controller import Controller

        class Drop:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                return "250 OK"

        sink = Controller(Drop(), hostname="127.0.0.1", port=free_port())
        sink.start()
        atexit.register(sink.stop)
        _mail_sink = sink
    return f"smtp://127.0.0.1:{_mail_sink.port}"


def launch(service: Service, only: tuple[str, ...] = ()) -> Service:
    """Runs `paygate serve` for `service` (again, after a crash) and waits until it answers /healthz."""
    log = (service.workdir / "serve.log").open("ab")
    roles = [arg for part in only for arg in ("--only", part)]
    program = ["-m", "tests.clock", str(service.clock_file)] if service.clock_file else ["-m", "server.boot.cli"]
    service.process = subprocess.Popen([sys.executable, *program, "serve", *roles], env=service.env,
                                       cwd=service.workdir, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90  # a loaded machine (parallel test files, helpers) starts Python slowly
    while time.monotonic() < deadline:
        if service.process.poll() is not None:
            raise RuntimeError(f"paygate serve exited: {service.log()}")
        try:
            if httpx.get(f"{service.http_url}/healthz", timeout=1, verify=TLS).status_code == 200:
                return service
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    stop(service)
    raise RuntimeError(f"paygate serve did not become healthy: {service.log()}")


def stop(service: Service) -> None:
    if service.process is not None and service.process.poll() is None:
        service.process.send_signal(signal.SIGTERM)
        try:
            service.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            service.process.kill()
    drop_database(service.database_url)
