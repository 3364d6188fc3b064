"""`paygate serve --workers N`: N serving processes on the same ports, one database (DESIGN §13).

Python runs one thread of Python at a time, so one process uses one core. Each worker is a full `paygate serve` (the
parts `--only` names) whose HTTP and gRPC sockets set SO_REUSEPORT: the kernel spreads new connections across the
workers. Nothing is shared in memory; whatever must happen once (a renewal, a delivery, a refund, a sweep) is claimed
in the database, so every worker may run the scheduler. On PostgreSQL this is how one machine uses all its cores.
On SQLite the workers share one file and one writer lock, and the in-memory rate limits are per worker.

The supervisor (this module) migrates once, starts the workers, forwards SIGINT/SIGTERM to them and waits; when one
worker dies, it stops the others and exits with an error (a process manager restarts the whole service).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from types import FrameType

from server import metrics
from server.boot.startup import Stop

log = logging.getLogger("paygate")
WORKER_FLAG = "--worker-process"  # internal: marks a worker's command line (binds with SO_REUSEPORT)
# A worker stops its scheduler (scheduler/app.py: up to 10 s), then HTTP and gRPC (server/boot/serve.py: 5 s each)
# before its database: the supervisor waits for all of that, and a margin, before it kills.
GRACE_SECONDS = 30.0


def check(workers: int) -> str | None:
    """Why `workers` processes cannot run, or None. (Ports are fixed: the configuration refuses port 0.)"""
    if workers < 1:
        return "--workers: at least 1"
    return None


def worker_argv(roles: set[str]) -> list[str]:
    only = [arg for role in sorted(roles) for arg in ("--only", role)]
    return [sys.executable, "-m", "server.boot.cli", "serve", *only, WORKER_FLAG]


def supervise(roles: set[str], workers: int, metrics_addr: str = "") -> int:
    """Runs `workers` worker processes until a signal (exit 0) or the death of one of them (exit 1).

    The workers keep their metrics in a directory of this run (prometheus_client's multi-process mode, set before
    they import it): a scrape of any worker, or of `metrics_addr` served here, sums them all. A fresh directory
    each run, so that counts start at zero as they would in one process."""
    with tempfile.TemporaryDirectory(prefix="paygate-metrics-") as path:
        exporter = None
        if metrics_addr:
            try:
                exporter = metrics.serve(metrics_addr, path)
            except OSError as e:
                raise Stop(f"cannot listen for metrics on {metrics_addr}: {e.strerror or e}") from None
        try:
            return _run_workers(roles, workers, {**os.environ, metrics.MULTIPROC_ENV: path})
        finally:
            if exporter is not None:
                exporter.shutdown()


def _run_workers(roles: set[str], workers: int, env: dict[str, str]) -> int:
    children = [subprocess.Popen(worker_argv(roles), env=env) for _ in range(workers)]
    stopping = False

    def forward(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    status = 0
    try:
        while not stopping:
            dead = [c for c in children if c.poll() is not None]
            if dead:
                print(f"paygate: worker {dead[0].pid} exited with status {dead[0].returncode}; stopping the others",
                      file=sys.stderr)
                status = 1
                forward(signal.SIGTERM, None)
                break
            time.sleep(0.2)
        deadline = time.monotonic() + GRACE_SECONDS
        for child in children:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return status


