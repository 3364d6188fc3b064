"""`paygate serve`: HTTP facade, gRPC server and scheduler in one process, or any subset of them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
from collections.abc import Iterator

import grpc
import uvicorn

from server import logs, metrics, money
from server.boot import process_patches
from server.boot.startup import Stop, ensure_schema, reason, runtime, safe_url
from server.clock import Clock
from server.config import ConfigError, Settings, live_mail_problem
from server.http_deadlines import Limits, protocol_class, raise_open_files_limit

log = logging.getLogger("paygate")
GRACE_SECONDS = 5.0


class _Uvicorn(uvicorn.Server):
    # Signals are ours: stopping is coordinated across the gRPC server, the facade and the scheduler.
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _split(addr: str) -> tuple[str, int]:
    host, _, port = addr.rpartition(":")
    return host.strip("[]"), int(port)


def _dial(addr: str) -> str:
    host, port = _split(addr)
    return f"{'127.0.0.1' if host in ('0.0.0.0', '', '::') else host}:{port}"


def server_credentials(settings: Settings) -> grpc.ServerCredentials | None:
    """TLS for the gRPC port when a certificate is configured; mutual TLS when a client CA is too."""
    if settings.grpc_tls_cert is None or settings.grpc_tls_key is None:
        return None
    client_ca = settings.grpc_tls_client_ca.read_bytes() if settings.grpc_tls_client_ca else None
    return grpc.ssl_server_credentials([(settings.grpc_tls_key.read_bytes(), settings.grpc_tls_cert.read_bytes())],
                                       root_certificates=client_ca, require_client_auth=client_ca is not None)


def listening_socket(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    """The HTTP listener, bound before uvicorn starts so that a port in use stops the command with one line (uvicorn
    would log it and exit its task). With `reuse_port`, other workers may bind it too (SO_REUSEPORT: the kernel
    spreads connections)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP spelled out: accepted connections inherit the listener's `proto`, and asyncio sets TCP_NODELAY
    # only on sockets whose proto says TCP. With proto 0, every response waited out Nagle against the client's
    # delayed ACK (a flat 40 ms per request with --workers 2).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(2048)
    sock.setblocking(False)
    return sock


async def run(settings: Settings, roles: set[str], *, clock: Clock | None = None, reuse_port: bool = False) -> None:
    """The composition root of a serving process: one runtime (server/boot/composition.py) for every part it runs.
    `reuse_port`: one of several workers sharing the ports (server/boot/workers.py)."""
    money.install()  # before any task or thread starts, so that each inherits the 60-digit precision
    process_patches.install()
    logs.configure(settings.log_level)
    rt = runtime(settings, clock)
    if problem := live_mail_problem(settings, roles):
        raise ConfigError(problem)
    db = rt.db
    if "grpc" in roles or "scheduler" in roles:
        await asyncio.to_thread(ensure_schema, settings)
    try:
        await db.ping()
    except Exception as e:
        raise Stop(f"cannot reach the database at {safe_url(settings.database_url)}: {reason(e)}") from None

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    grpc_server = None
    local = None
    exporter = None
    http_server: _Uvicorn | None = None
    http_task: asyncio.Task[None] | None = None
    sched = None
    try:
        if settings.metrics_addr and not reuse_port:  # a worker's: its supervisor serves them all (workers.py)
            try:
                exporter = metrics.serve(settings.metrics_addr)
            except OSError as e:
                raise Stop(f"cannot listen for metrics on {settings.metrics_addr}: {e.strerror or e}") from None
            log.info("metrics listening", extra={"addr": settings.metrics_addr})
        if "grpc" in roles:
            from server.boot.grpc_server import build

            try:
                grpc_server, port, local = await build(rt, settings.grpc_addr, server_credentials(settings),
                                                       reuse_port=reuse_port)
            except OSError as e:
                raise Stop(str(e)) from None
            log.info("grpc listening", extra={"addr": f"{_split(settings.grpc_addr)[0]}:{port}"})
        if "http" in roles:
            from server.boot.composition import http_facade

            host, port = _split(settings.http_addr)
            app = http_facade(settings, _dial(settings.grpc_addr), same_process="grpc" in roles,
                              in_process=local if settings.facade_channel == "in_process" else None)
            # proxy_headers off: uvicorn would take the client's address from X-Forwarded-For whenever the peer is
            # 127.0.0.1, before the gateway's own rule (`trusted_proxies`, in the facade) is applied.
            # The protocol: uvicorn's httptools one with the slow-client deadlines and the connection cap.
            limits = Limits(settings.http_header_timeout_seconds, settings.http_body_timeout_seconds,
                            settings.http_max_connections)
            raise_open_files_limit(limits.max_connections)
            http_server = _Uvicorn(uvicorn.Config(app, host=host, port=port, log_config=None, access_log=False,
                                                  proxy_headers=False, lifespan="on", http=protocol_class(limits),
                                                  timeout_graceful_shutdown=int(GRACE_SECONDS)))
            try:
                sockets = [listening_socket(host, port, reuse_port=reuse_port)]
            except OSError as e:
                raise Stop(f"cannot listen for HTTP on {settings.http_addr}: {e.strerror or e}") from None
            http_task = asyncio.create_task(http_server.serve(sockets=sockets))
            while not http_server.started and not http_task.done():
                await asyncio.sleep(0.02)
            if http_task.done():
                raise Stop(f"cannot listen for HTTP on {settings.http_addr}")
            log.info("http listening", extra={"addr": settings.http_addr})
        if "scheduler" in roles:
            from scheduler.app import build as build_scheduler

            sched = build_scheduler(rt)
            sched.start()
            log.info("scheduler started")
        log.info("paygate ready", extra={"roles": sorted(roles)})
        await stop.wait()
        log.info("stopping")
    finally:
        if sched is not None:
            # Before the servers and the database close: a cancelled job run gives back what it holds.
            await sched.stop()
            log.info("scheduler stopped")
        if http_server is not None and http_task is not None:
            http_server.should_exit = True
            with contextlib.suppress(Exception, SystemExit):  # uvicorn ends its task with SystemExit on errors
                await http_task
        if grpc_server is not None:
            await grpc_server.stop(GRACE_SECONDS)
        await rt.tasks.close(GRACE_SECONDS)  # what calls started and did not wait for, before the database closes
        await rt.auth.close()
        await rt.limiter.close()
        await db.close()
        if exporter is not None:
            exporter.shutdown()
