"""paygate's Prometheus metrics (DESIGN §22): each defined once here, counted where the thing happens through the
small hooks below, exposed by `exposition()` (`GET /metrics` on the facade, or on `metrics_addr`).

Only prometheus_client (and protobuf, to read an error's trailers) is imported, so every package may call a hook
without depending on the facade, the scheduler or the composition root.

Under `paygate serve --workers N` the supervisor sets PROMETHEUS_MULTIPROC_DIR for its workers before they start
(server/boot/workers.py): prometheus_client then keeps each process's values in files there, and an exposition
sums every worker's, whichever worker answers the scrape.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
DETAILS_KEY = "grpc-status-details-bin"
# Seconds: a read is a few milliseconds, a write on SQLite's group commit tens of them, a chain call up to seconds.
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_JOB_BUCKETS = (0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0)

REQUESTS = Counter("paygate_requests", "RPCs answered, by RPC, status (the envelope's error_code, or ok) and "
                   "transport (http: the /v1 facade; grpc: the gRPC port)", ["rpc", "status", "transport"])
REQUEST_SECONDS = Histogram("paygate_request_duration_seconds", "Time to answer an RPC, by RPC and transport",
                            ["rpc", "transport"], buckets=_LATENCY_BUCKETS)
JOB_RUNS = Counter("paygate_job_runs", "Scheduler job runs started, by job", ["job"])
JOB_FAILURES = Counter("paygate_job_failures", "Scheduler job runs that ended with an error, by job", ["job"])
JOB_SECONDS = Histogram("paygate_job_duration_seconds", "Duration of scheduler job runs, by job", ["job"],
                        buckets=_JOB_BUCKETS)
WEBHOOK_DELIVERIES = Counter("paygate_webhook_deliveries", "Webhook delivery attempts, by outcome (succeeded: a "
                             "2xx answer; failed: anything else, retried while the window lasts)", ["outcome"])
# mostrecent: with several workers the newest reading wins (a re-organisation may lower it; max would hide that).
CHAIN_HEIGHT = Gauge("paygate_chain_height", "Newest block height the chain watcher saw, by network", ["network"],
                     multiprocess_mode="mostrecent")
RATE_LIMIT_REFUSALS = Counter("paygate_rate_limit_refusals", "Calls refused by the rate limiter, by kind (key: per "
                              "secret key; ip: per client IP; checkout: per client secret)", ["kind"])

# The children of the request metrics, by labels: `labels()` takes a lock and validates on every call, and a
# request path pays for it twice; a dict look-up is enough once a combination exists.
_request_children: dict[tuple[str, str, str], tuple[Any, Any]] = {}


def request_done(rpc: str, status: str, transport: str, seconds: float) -> None:
    """One RPC answered: `rpc` is `package.Service/Method`, `status` the error_code or "ok"."""
    key = (rpc, status, transport)
    children = _request_children.get(key)
    if children is None:
        children = _request_children[key] = (REQUESTS.labels(rpc, status, transport),
                                              REQUEST_SECONDS.labels(rpc, transport))
    children[0].inc()
    children[1].observe(seconds)


def error_code_of(trailers: Iterable[tuple[str, Any]] | None) -> str:
    """The error_code (ErrorInfo.reason) a failed call's trailers carry; server_error when they carry none."""
    from google.rpc import error_details_pb2, status_pb2

    for key, raw in trailers or ():
        if key == DETAILS_KEY and isinstance(raw, bytes):
            info = error_details_pb2.ErrorInfo()
            for detail in status_pb2.Status.FromString(raw).details:
                if detail.Unpack(info):
                    return info.reason or "server_error"
    return "server_error"


@asynccontextmanager
async def job_run(job: str) -> AsyncIterator[None]:
    """Around one run of a scheduler job: counts the run, its duration and, when it raises, a failure (a run
    cancelled because the process stops is not one)."""
    JOB_RUNS.labels(job).inc()
    started = time.perf_counter()
    try:
        yield
    except Exception:
        JOB_FAILURES.labels(job).inc()
        raise
    finally:
        JOB_SECONDS.labels(job).observe(time.perf_counter() - started)


def webhook_delivered(succeeded: bool) -> None:
    WEBHOOK_DELIVERIES.labels("succeeded" if succeeded else "failed").inc()


def chain_height(network: str, height: int) -> None:
    CHAIN_HEIGHT.labels(network).set(height)


def rate_limited(kind: str) -> None:
    RATE_LIMIT_REFUSALS.labels(kind).inc()


def _registry(path: str | None = None) -> CollectorRegistry:
    """This process's registry, or in multi-process mode one that reads every process's files."""
    path = path or os.environ.get(MULTIPROC_ENV)
    if not path:
        return REGISTRY
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=path)
    return registry


def exposition() -> tuple[bytes, str]:
    """The body and content type of a scrape."""
    return generate_latest(_registry()), CONTENT_TYPE_LATEST


def serve(addr: str, path: str | None = None) -> Any:
    """Serves the exposition on `addr` (HOST:PORT) from a thread of this process; `path`: the multi-process
    directory of the workers whose sums it shows. The HTTP server (its `shutdown()` stops it)."""
    host, _, port = addr.rpartition(":")
    server, _thread = start_http_server(int(port), addr=host.strip("[]"), registry=_registry(path))
    return server
