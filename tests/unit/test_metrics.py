"""server/metrics.py: each hook counts what it names, the exposition parses, and multi-process mode sums processes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from server import metrics


def _sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_a_request_counts_once_under_its_rpc_status_and_transport_and_observes_its_latency() -> None:
    before = _sample("paygate_requests_total", rpc="unit.S/One", status="ok", transport="http")
    count_before = _sample("paygate_request_duration_seconds_count", rpc="unit.S/One", transport="http")
    metrics.request_done("unit.S/One", "ok", "http", 0.004)
    assert _sample("paygate_requests_total", rpc="unit.S/One", status="ok", transport="http") == before + 1
    assert _sample("paygate_request_duration_seconds_count", rpc="unit.S/One", transport="http") == count_before + 1
    assert _sample("paygate_request_duration_seconds_bucket", rpc="unit.S/One", transport="http", le="0.005") \
        == count_before + 1


def test_a_job_run_counts_its_run_and_duration_and_a_failed_one_its_failure() -> None:
    async def runs() -> None:
        async with metrics.job_run("unit_job"):
            pass
        with pytest.raises(RuntimeError):
            async with metrics.job_run("unit_job"):
                raise RuntimeError("boom")

    asyncio.run(runs())
    assert _sample("paygate_job_runs_total", job="unit_job") == 2
    assert _sample("paygate_job_failures_total", job="unit_job") == 1
    assert _sample("paygate_job_duration_seconds_count", job="unit_job") == 2


def test_a_cancelled_job_run_is_not_a_failure() -> None:
    async def cancelled() -> None:
        with pytest.raises(asyncio.CancelledError):
            async with metrics.job_run("unit_cancelled"):
                raise asyncio.CancelledError

    asyncio.run(cancelled())
    assert _sample("paygate_job_runs_total", job="unit_cancelled") == 1
    assert _sample("paygate_job_failures_total", job="unit_cancelled") == 0


def test_webhook_outcomes_chain_heights_and_rate_limit_refusals() -> None:
    ok_before = _sample("paygate_webhook_deliveries_total", outcome="succeeded")
    metrics.webhook_delivered(True)
    metrics.webhook_delivered(False)
    metrics.webhook_delivered(False)
    assert _sample("paygate_webhook_deliveries_total", outcome="succeeded") == ok_before + 1
    metrics.chain_height("unit-net", 120)
    metrics.chain_height("unit-net", 121)
    assert _sample("paygate_chain_height", network="unit-net") == 121
    metrics.rate_limited("unit_kind")
    assert _sample("paygate_rate_limit_refusals_total", kind="unit_kind") == 1


def test_the_error_code_of_grpc_trailers_is_the_status_label() -> None:
    from google.protobuf import any_pb2
    from google.rpc import error_details_pb2, status_pb2

    detail = any_pb2.Any()
    detail.Pack(error_details_pb2.ErrorInfo(reason="customer_not_found", domain="paygate"))
    trailers = (("retry-after", "1"), ("grpc-status-details-bin",
                                       status_pb2.Status(code=5, details=[detail]).SerializeToString()))
    assert metrics.error_code_of(trailers) == "customer_not_found"
    assert metrics.error_code_of(()) == "server_error"


def test_the_exposition_parses_as_prometheus_text() -> None:
    metrics.request_done("unit.S/Two", "parameter_invalid", "grpc", 0.2)
    body, content_type = metrics.exposition()
    assert content_type.startswith("text/plain; version=")
    found = {(s.name, tuple(sorted(s.labels.items()))): s.value
             for family in text_string_to_metric_families(body.decode()) for s in family.samples}
    key = ("paygate_requests_total", (("rpc", "unit.S/Two"), ("status", "parameter_invalid"), ("transport", "grpc")))
    assert found[key] >= 1


_COUNT_IN_A_PROCESS = "from server import metrics; [metrics.request_done('unit.S/Mp', 'ok', 'http', 0.01) " \
                      "for _ in range({n})]"
_EXPOSE = "from server import metrics; import sys; sys.stdout.write(metrics.exposition()[0].decode())"


def test_in_multi_process_mode_the_exposition_sums_every_process(tmp_path: Path) -> None:
    env = {**os.environ, metrics.MULTIPROC_ENV: str(tmp_path)}
    for n in (3, 4):  # two processes that have ended, as workers' files outlive a scrape of another worker
        subprocess.run([sys.executable, "-c", _COUNT_IN_A_PROCESS.format(n=n)], env=env, check=True)
    out = subprocess.run([sys.executable, "-c", _EXPOSE], env=env, check=True, capture_output=True, text=True).stdout
    found = {(s.name, tuple(sorted(s.labels.items()))): s.value
             for family in text_string_to_metric_families(out) for s in family.samples}
    assert found[("paygate_requests_total", (("rpc", "unit.S/Mp"), ("status", "ok"), ("transport", "http")))] == 7
    assert found[("paygate_request_duration_seconds_count", (("rpc", "unit.S/Mp"), ("transport", "http")))] == 7
