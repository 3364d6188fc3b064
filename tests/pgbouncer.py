"""PgBouncer (Debian's `pgbouncer`, installed by `make setup`) in transaction pooling mode, in front of the local
PostgreSQL: a real subprocess on a free loopback port, for the tests of `database_transaction_pooling`.

PgBouncer refuses to run as root: as root it runs as the `postgres` user, so its folder is readable by that user.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

from tests.harness import PG_ADMIN_URL, free_port

BINARY = "/usr/sbin/pgbouncer"
SERVER_CONNECTIONS = 4  # per database and user: fewer than the paygate pools' clients, so it must share them


@dataclass
class PgBouncer:
    port: int
    process: subprocess.Popen[bytes]
    folder: Path

    def url(self, database_url: str) -> str:
        """`database_url` (the local PostgreSQL's) through this pooler."""
        return make_url(database_url).set(host="127.0.0.1", port=self.port).render_as_string(hide_password=False)

    def log(self) -> str:
        path = self.folder / "pgbouncer.log"
        return path.read_text(errors="replace") if path.exists() else ""


@contextmanager
def pgbouncer() -> Iterator[PgBouncer]:
    server = psycopg.conninfo.conninfo_to_dict(PG_ADMIN_URL)
    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="paygate-pgbouncer-"))
    folder.chmod(0o777)  # the postgres user writes its log here
    (folder / "users.txt").write_text(f'"{server.get("user", "postgres")}" ""\n')
    (folder / "pgbouncer.ini").write_text(f"""[databases]
* = host={server.get("host", "127.0.0.1")} port={server.get("port", 5432)}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {folder / "users.txt"}
pool_mode = transaction
default_pool_size = {SERVER_CONNECTIONS}
max_client_conn = 1000
logfile = {folder / "pgbouncer.log"}
""")
    for name in ("users.txt", "pgbouncer.ini"):
        (folder / name).chmod(0o644)
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    process = subprocess.Popen([*as_user, BINARY, str(folder / "pgbouncer.ini")], stdout=subprocess.DEVNULL,
                               stderr=subprocess.STDOUT)
    bouncer = PgBouncer(port, process, folder)
    try:
        _wait_until_it_answers(bouncer)
        yield bouncer
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(folder, ignore_errors=True)


def _wait_until_it_answers(bouncer: PgBouncer) -> None:
    deadline = time.monotonic() + 30
    while True:
        if bouncer.process.poll() is not None:
            raise RuntimeError(f"pgbouncer exited: {bouncer.log()}")
        try:
            with psycopg.connect(bouncer.url(PG_ADMIN_URL), connect_timeout=2) as conn:
                conn.execute("SELECT 1")
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
