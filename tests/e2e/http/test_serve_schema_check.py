"""`paygate serve` against a database whose schema is older than the build (README "Running several copies"): on
PostgreSQL it refuses to start and names the command to run, changing nothing; on SQLite (the embedded default) it
migrates on the spot and serves."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from server.db import migrate
from tests.harness import TLS, create_database, drop_database, launch, prepare, stop
from tests.harness import paygate as cli

OLD_REVISION = "0029"  # any revision before the newest


@pytest.fixture
def old_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    url = create_database(request.param, tmp_path)
    migrate.upgrade(url, OLD_REVISION)
    yield url
    drop_database(url)


@pytest.mark.parametrize("old_database", ["postgresql"], indirect=True)
def test_serve_on_postgresql_refuses_an_old_schema_and_names_the_command(old_database: str, tmp_path: Path) -> None:
    service = prepare("postgresql", tmp_path, database_url=old_database)
    done = cli(service.env, service.workdir, "serve", timeout=180)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"paygate: the database schema is at revision {OLD_REVISION}, this build needs {migrate.head_revision()}: "
        "run `paygate migrate` first"), done.stderr
    assert migrate.current_revision(old_database) == OLD_REVISION
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{service.http_url}/healthz", timeout=1, verify=TLS)


@pytest.mark.parametrize("old_database", ["sqlite"], indirect=True)
def test_serve_on_sqlite_migrates_an_old_schema_on_the_spot(old_database: str, tmp_path: Path) -> None:
    service = launch(prepare("sqlite", tmp_path, database_url=old_database))
    try:
        assert migrate.current_revision(old_database) == migrate.head_revision()
        assert httpx.get(f"{service.http_url}/healthz", timeout=10, verify=TLS).status_code == 200
    finally:
        stop(service)
