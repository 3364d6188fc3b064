"""`metrics_addr` (server/config.py): where `GET /metrics` is served when not on the facade."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.config import ConfigError, load_settings


@pytest.fixture(autouse=True)
def empty_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no paygate.toml of the checkout is read
    return tmp_path


def test_metrics_addr_is_empty_by_default_so_the_facade_serves_metrics() -> None:
    assert load_settings({}).metrics_addr == ""


def test_env_sets_metrics_addr() -> None:
    assert load_settings({"PAYGATE_METRICS_ADDR": "127.0.0.1:9100"}).metrics_addr == "127.0.0.1:9100"


def test_the_metrics_table_of_paygate_toml_sets_metrics_addr(empty_cwd: Path) -> None:
    (empty_cwd / "paygate.toml").write_text('[metrics]\naddr = "0.0.0.0:9100"\n')
    assert load_settings({}).metrics_addr == "0.0.0.0:9100"


@pytest.mark.parametrize("addr", ["9100", "localhost:", "127.0.0.1:99999", "127.0.0.1:metrics"])
def test_a_metrics_addr_that_is_not_host_port_is_refused(addr: str) -> None:
    with pytest.raises(ConfigError, match="metrics_addr"):
        load_settings({"PAYGATE_METRICS_ADDR": addr})


def test_a_metrics_addr_on_the_http_port_is_refused() -> None:
    with pytest.raises(ConfigError, match="must differ"):
        load_settings({"PAYGATE_METRICS_ADDR": "127.0.0.1:8000"})
