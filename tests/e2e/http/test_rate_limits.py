"""Rate limits (DESIGN.md §14): per secret key, and per client secret and per client IP on checkout calls.

A dedicated service with small limits: a token every 5 s, so that a quick burst never refills in time.
Its facade believes X-Forwarded-For from 127.0.0.1 (`trusted_proxies`), so each test can speak from its own IP.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2, status_pb2
from paygate.v1 import customers_pb2, customers_pb2_grpc

from server.config import ConfigError, load_settings
from tests.conftest import basic, fails, ok
from tests.harness import TLS, Service, free_port, launch, start, stop

KEY_BURST, CHECKOUT_BURST, IP_BURST = 5, 3, 8
LIMITS = {
    "PAYGATE_RATE_LIMIT_PER_SECOND": "0.2", "PAYGATE_RATE_LIMIT_BURST": str(KEY_BURST),
    "PAYGATE_RATE_LIMIT_CHECKOUT_PER_SECOND": "0.2", "PAYGATE_RATE_LIMIT_CHECKOUT_BURST": str(CHECKOUT_BURST),
    "PAYGATE_RATE_LIMIT_IP_PER_SECOND": "0.2", "PAYGATE_RATE_LIMIT_IP_BURST": str(IP_BURST),
    "PAYGATE_TRUSTED_PROXIES": "127.0.0.1",
}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def limited(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"limited-{request.param}")), extra_env=LIMITS)
    yield svc
    stop(svc)


def _client(svc: Service, key: str | None = None) -> httpx.Client:
    return httpx.Client(base_url=svc.http_url, auth=httpx.BasicAuth(key, "") if key else None, timeout=30, verify=TLS)


def _ip() -> str:
    return f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250) + 1}"


def _intent(svc: Service, merchant: dict[str, Any]) -> dict[str, Any]:
    with _client(svc, merchant["test"]["secret_key"]) as api:
        return ok(api.post("/v1/payment_intents", json={"amount": "10.50", "currency": "USD"}))  # type: ignore


def _read(client: httpx.Client, merchant: dict[str, Any], intent: dict[str, Any], ip: str) -> httpx.Response:
    body = {"key": merchant["test"]["public_key"], "client_secret": intent["client_secret"]}
    return client.post(f"/payment_intents/link/{intent['id']}", json=body, headers={"X-Forwarded-For": ip})


def _exhaust(api: httpx.Client) -> httpx.Response:
    for _ in range(KEY_BURST):
        ok(api.get("/v1/customers"))
    return api.get("/v1/customers")


def test_a_burst_beyond_the_key_limit_is_429_rate_limited_with_retry_after(limited: Service) -> None:
    with _client(limited, limited.create_merchant()["test"]["secret_key"]) as api:
        response = _exhaust(api)
    fails(response, 429, "rate_limited")
    assert int(response.headers["Retry-After"]) >= 1


def test_another_key_is_not_limited_by_a_spent_key(limited: Service) -> None:
    merchant = limited.create_merchant()
    with _client(limited, merchant["test"]["secret_key"]) as api:
        fails(_exhaust(api), 429, "rate_limited")
    with _client(limited, merchant["live"]["secret_key"]) as live:
        ok(live.get("/v1/customers"))
    with _client(limited, limited.create_merchant()["test"]["secret_key"]) as other:
        ok(other.get("/v1/customers"))


def test_a_spent_key_is_allowed_again_after_retry_after(limited: Service) -> None:
    with _client(limited, limited.create_merchant()["test"]["secret_key"]) as api:
        response = _exhaust(api)
        fails(response, 429, "rate_limited")
        time.sleep(int(response.headers["Retry-After"]))
        ok(api.get("/v1/customers"))


def test_grpc_caller_gets_resource_exhausted_with_error_info_and_retry_after(limited: Service) -> None:
    key = limited.create_merchant()["test"]["secret_key"]
    with grpc.insecure_channel(limited.grpc_addr) as channel:
        stub = customers_pb2_grpc.CustomerServiceStub(channel)
        auth = [("authorization", f"Bearer {key}")]
        for _ in range(KEY_BURST):
            stub.ListCustomers(customers_pb2.ListCustomersRequest(), metadata=auth)
        with pytest.raises(grpc.RpcError) as caught:
            stub.ListCustomers(customers_pb2.ListCustomersRequest(), metadata=auth)
    err = caught.value
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    trailers = dict(err.trailing_metadata())
    assert int(trailers["retry-after"]) >= 1
    info = error_details_pb2.ErrorInfo()
    assert status_pb2.Status.FromString(trailers["grpc-status-details-bin"]).details[0].Unpack(info)
    assert info.reason == "rate_limited"


def test_checkout_calls_are_limited_per_client_secret(limited: Service) -> None:
    merchant = limited.create_merchant()
    first, second = _intent(limited, merchant), _intent(limited, merchant)
    ip = _ip()
    with _client(limited) as anonymous:
        for _ in range(CHECKOUT_BURST):
            ok(_read(anonymous, merchant, first, ip))
        response = _read(anonymous, merchant, first, ip)
        fails(response, 429, "rate_limited")
        assert int(response.headers["Retry-After"]) >= 1
        ok(_read(anonymous, merchant, second, ip))  # another client secret, same IP: still allowed


def test_checkout_calls_are_limited_per_client_ip(limited: Service) -> None:
    merchant = limited.create_merchant()
    intents = [_intent(limited, merchant) for _ in range(KEY_BURST - 1)]
    ip = _ip()
    with _client(limited) as anonymous:
        calls = [_read(anonymous, merchant, intents[i % len(intents)], ip) for i in range(IP_BURST)]
        assert [c.status_code for c in calls] == [200] * IP_BURST
        fails(_read(anonymous, merchant, intents[-1], ip), 429, "rate_limited")
        ok(_read(anonymous, merchant, intents[0], _ip()))  # a client secret of that IP, from another IP


def test_a_client_sent_forwarded_for_beyond_the_trusted_proxy_is_not_believed(limited: Service) -> None:
    merchant = limited.create_merchant()
    intents = [_intent(limited, merchant) for _ in range(KEY_BURST - 1)]
    real = _ip()
    with _client(limited) as anonymous:
        # The client invents a new address per call in front of its real one: only the real one counts.
        for i in range(IP_BURST):
            ok(_read(anonymous, merchant, intents[i % len(intents)], f"{_ip()}, {real}"))
        fails(_read(anonymous, merchant, intents[-1], f"{_ip()}, {real}"), 429, "rate_limited")


def test_forwarded_for_is_never_believed_without_trusted_proxies_even_from_loopback(limited: Service) -> None:
    # The gateway alone decides whom to believe (`trusted_proxies`, empty here); the HTTP server in front of it
    # must not rewrite the peer from X-Forwarded-For first (uvicorn believes 127.0.0.1 by default).
    env = {k: v for k, v in limited.env.items() if k != "PAYGATE_TRUSTED_PROXIES"}
    env.update(PAYGATE_HTTP_ADDR=f"127.0.0.1:{free_port()}", PAYGATE_GRPC_ADDR=f"127.0.0.1:{free_port()}")
    other_dir = limited.workdir / "untrusting"
    other_dir.mkdir(exist_ok=True)
    untrusting = replace(limited, env=env, http_url=f"http://{env['PAYGATE_HTTP_ADDR']}",
                         grpc_addr=env["PAYGATE_GRPC_ADDR"], workdir=other_dir, process=None)
    launch(untrusting, ("http", "grpc"))
    try:
        merchant = untrusting.create_merchant()
        intents = [_intent(untrusting, merchant) for _ in range(KEY_BURST - 1)]
        with _client(untrusting) as anonymous:
            for i in range(IP_BURST):  # a new invented address per call: all are 127.0.0.1's
                ok(_read(anonymous, merchant, intents[i % len(intents)], _ip()))
            fails(_read(anonymous, merchant, intents[-1], _ip()), 429, "rate_limited")
    finally:
        assert untrusting.process is not None
        untrusting.process.terminate()
        untrusting.process.wait(timeout=15)


def test_the_normal_test_service_does_not_limit_a_burst(service: Service, api: httpx.Client) -> None:
    assert [api.get("/v1/customers").status_code for _ in range(KEY_BURST * 2)] == [200] * KEY_BURST * 2


def test_two_serve_processes_on_one_postgresql_share_one_budget(limited: Service) -> None:
    if limited.kind != "postgresql":
        pytest.skip("SQLite runs one process; its buckets live in memory")
    env = {**limited.env, "PAYGATE_HTTP_ADDR": f"127.0.0.1:{free_port()}",
           "PAYGATE_GRPC_ADDR": f"127.0.0.1:{free_port()}"}
    second = replace(limited, env=env, http_url=f"http://{env['PAYGATE_HTTP_ADDR']}",
                     grpc_addr=env["PAYGATE_GRPC_ADDR"], process=None)
    launch(second, ("http", "grpc"))
    try:
        key = limited.create_merchant()["test"]["secret_key"]
        statuses = []
        for i in range(KEY_BURST + 1):
            svc = limited if i % 2 == 0 else second
            statuses.append(httpx.get(f"{svc.http_url}/v1/customers", headers={"Authorization": basic(key)},
                                      timeout=30, verify=TLS).status_code)
        assert statuses == [200] * KEY_BURST + [429]
    finally:
        assert second.process is not None
        second.process.terminate()
        second.process.wait(timeout=15)


def test_limits_and_trusted_proxies_read_from_paygate_toml_sections(tmp_path: Path) -> None:
    config = tmp_path / "paygate.toml"
    config.write_text('trusted_proxies = ["10.0.0.0/8"]\n[rate_limit]\nper_second = 0\nburst = 7\n'
                      "checkout_per_second = 2.5\n[grpc]\nreflection = false\n")
    settings = load_settings({"PAYGATE_CONFIG": str(config)})
    assert (settings.rate_limit_per_second, settings.rate_limit_burst) == (0, 7)
    assert settings.rate_limit_checkout_per_second == 2.5 and settings.trusted_proxies == ("10.0.0.0/8",)
    assert settings.grpc_reflection is False
    env = {"PAYGATE_CONFIG": str(config), "PAYGATE_RATE_LIMIT_BURST": "9"}
    assert load_settings(env).rate_limit_burst == 9  # the environment wins over the file


@pytest.mark.parametrize(("var", "value"), [("PAYGATE_RATE_LIMIT_PER_SECOND", "fast"),
                                            ("PAYGATE_RATE_LIMIT_PER_SECOND", "-1"),
                                            ("PAYGATE_RATE_LIMIT_IP_BURST", "0"),
                                            ("PAYGATE_TRUSTED_PROXIES", "not-an-ip")])
def test_a_bad_limit_setting_is_one_config_error_naming_it(var: str, value: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings({var: value})
    assert var.removeprefix("PAYGATE_").lower() in str(caught.value)
