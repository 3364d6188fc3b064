"""`paygate serve --workers N` (DESIGN §13): N processes on the same HTTP and gRPC ports, one database."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
from paygate.v1 import customers_pb2, customers_pb2_grpc

from tests.conftest import basic, ok
from tests.harness import TLS, Service, start, stop

WORKERS = 2


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(p) for p in f.read().split()]


def _listening_inodes(port: int) -> set[str]:
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                    inodes.add(fields[9])
    return inodes


def _sockets_of(pid: int) -> set[str]:
    out = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            out.add(target[len("socket:["):-1])
    return out


def _port(addr: str) -> int:
    return int(addr.rpartition(":")[2])


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def workers(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"workers-{request.param}")), only=("http", "grpc"))
    assert svc.process is not None
    svc.process.terminate()  # the single process made the database ready; the workers take over its ports
    svc.process.wait(timeout=15)
    log = (svc.workdir / "workers.log").open("ab")
    svc.process = subprocess.Popen([sys.executable, "-m", "server.boot.cli", "serve", "--only", "http", "--only",
                                    "grpc", "--workers", str(WORKERS)], env=svc.env, cwd=svc.workdir, stdout=log,
                                   stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert svc.process.poll() is None, (svc.workdir / "workers.log").read_text()
        listening = _listening_inodes(_port(svc.http_url))
        if len(listening) >= WORKERS:
            break
        time.sleep(0.2)
    yield svc
    stop(svc)


def test_every_worker_listens_on_the_http_and_the_grpc_port(workers: Service) -> None:
    assert workers.process is not None
    children = _children(workers.process.pid)
    assert len(children) == WORKERS
    http, grpc_ = _listening_inodes(_port(workers.http_url)), _listening_inodes(_port(workers.grpc_addr))
    for child in children:
        sockets = _sockets_of(child)
        assert sockets & http, f"worker {child} does not listen for HTTP"
        assert sockets & grpc_, f"worker {child} does not listen for gRPC"


def test_objects_made_through_one_connection_are_read_through_others(workers: Service) -> None:
    merchant = workers.create_merchant()
    key = merchant["test"]["secret_key"]
    created = []
    for i in range(20):  # a new connection each time: the kernel spreads them over the workers
        with httpx.Client(base_url=workers.http_url, timeout=30, verify=TLS) as client:
            created.append(ok(client.post("/v1/customers", json={"name": f"W{i}"},
                                          headers={"Authorization": basic(key)}))["id"])
    for customer_id in created:
        with grpc.insecure_channel(workers.grpc_addr) as channel:
            reply = customers_pb2_grpc.CustomerServiceStub(channel).GetCustomer(
                customers_pb2.GetCustomerRequest(id=customer_id), metadata=[("authorization", f"Bearer {key}")],
                timeout=30)
        assert reply.customer.id == customer_id


def test_sigterm_stops_every_worker(workers: Service) -> None:
    assert workers.process is not None
    children = _children(workers.process.pid)
    workers.process.send_signal(signal.SIGTERM)
    assert workers.process.wait(timeout=30) == 0
    for child in children:
        assert not Path(f"/proc/{child}").exists() or "zombie" in Path(f"/proc/{child}/status").read_text()


def test_workers_are_at_least_one(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAYGATE_")}
    env.update(PAYGATE_DATABASE_URL=f"sqlite:///{tmp_path / 'p.db'}", PYTHONPATH=str(Path(__file__).parents[3]))
    done = subprocess.run([sys.executable, "-m", "server.boot.cli", "serve", "--workers", "0"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--workers: at least 1" in done.stderr, done.stderr
