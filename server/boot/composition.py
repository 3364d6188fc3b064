"""The composition root: one Runtime per process, with every package's servicer, listeners and jobs registered
into it.

Called once at start-up by `paygate serve` (server/boot/serve.py), the CLI's commands (server/boot/cli.py,
server/boot/demo.py) and by tests that run the domain in-process. A new package adds its wiring module to PACKAGES.
`http_facade` wires the HTTP facade (gateway_http) of a serving process: the one place in server/ that knows it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

import grpc

from scheduler import jobs as scheduler_jobs
from server import keyfiles
from server.aml import Screening
from server.assets import wiring as assets
from server.cards import wiring as cards
from server.cards.accounts import Cards
from server.catalogue.catalogue import Catalogue, load
from server.catalogue.health import RpcHealth
from server.checkout import wiring as checkout
from server.clock import Clock, SystemClock
from server.config import ConfigError, Settings
from server.customers import wiring as customers
from server.db import Database
from server.invoices import wiring as invoices
from server.merchants import wiring as merchants
from server.orders import wiring as orders
from server.payment_intents import wiring as payment_intents
from server.payment_intents.client_secret import ClientSecrets
from server.payment_links import wiring as payment_links
from server.payrolls import wiring as payrolls
from server.products import wiring as products
from server.rails.registry import Rails, card_rails, chain_scanners, probe
from server.ratelimit.limiter import Limiter
from server.rates import TableRates
from server.refunds import wiring as refunds
from server.rpc.auth import Authenticator
from server.runtime import Runtime
from server.sealing import SecretBox
from server.selling_plans import wiring as selling_plans
from server.subscriptions import wiring as subscriptions
from server.treasury import wiring as treasury
from server.wallet.mnemonics import Keys
from server.webhooks import wiring as webhooks


class Package(Protocol):
    """A package's wiring module (`server/<package>/wiring.py`; the scheduler's `scheduler/jobs.py`)."""

    def register(self, rt: Runtime) -> None: ...


if TYPE_CHECKING:
    from starlette.applications import Starlette

    from gateway_http.tls import ChannelTls
    from server.rpc.inprocess import InProcessChannel

# Each package's wiring names its servicer (SERVICES), jobs and listeners (`register`); where their order matters it
# is declared where they listen (server/chains/hooks.py's stages), not by this tuple's order. The outbox's
# subscribers run in this order (webhooks' fan-out, subscriptions' lifecycle, orders, the treasury's ledger); each reads
# only rows the others do not write.
PACKAGES: tuple[Package, ...] = (assets, checkout, customers, invoices, merchants, payment_links, products,
                                 selling_plans, payment_intents, cards, refunds, webhooks, subscriptions, orders,
                                 payrolls, treasury, scheduler_jobs)


def implemented_services() -> dict[str, Callable[[Runtime], object]]:
    """Every gRPC service a package implements, by the API's full name (the rest answer UNIMPLEMENTED)."""
    return {name: factory for package in PACKAGES for name, factory in getattr(package, "SERVICES", {}).items()}


def build_runtime(settings: Settings, *, db: Database | None = None, catalogue: Catalogue | None = None,
                  var_dir: Path = keyfiles.VAR, clock: Clock | None = None) -> Runtime:
    """The runtime's parts, nothing registered yet. Raises CatalogueError (a bad networks file) and WalletError (a
    bad mnemonic) before anything runs."""
    catalogue = catalogue or load(settings.networks_file, settings.providers)
    clock = clock or (db.clock if db is not None else SystemClock())
    db = db or Database(settings.database_url, pool_size=settings.database_pool_size,
                        group_commit=settings.sqlite_group_commit, clock=clock,
                        transaction_pooling=settings.database_transaction_pooling)
    if db.clock is not clock:  # rows stamped on one clock, due-checks on another: the bug this prevents
        raise ValueError("the runtime's clock must be its database's: build the Database with clock=")
    box = SecretBox(settings.encryption_key, var_dir)
    rails = Rails(catalogue, db, settings)
    return Runtime(settings=settings, db=db, catalogue=catalogue, auth=Authenticator(db),
                   limiter=Limiter.from_settings(settings, db),
                   rates=TableRates(settings.rates), keys=Keys.of(settings, var_dir),
                   secrets=ClientSecrets(settings.secret_key, var_dir),
                   box=box, screening=Screening.from_settings(settings, rails.addresses),
                   scanners=chain_scanners(catalogue), rails=rails,
                   cards=Cards(box=box, rails=card_rails(settings)),
                   health=RpcHealth(catalogue.networks.values(), probe), clock=clock)


def compose(settings: Settings, *, db: Database | None = None, catalogue: Catalogue | None = None,
            var_dir: Path = keyfiles.VAR, clock: Clock | None = None) -> Runtime:
    rt = build_runtime(settings, db=db, catalogue=catalogue, var_dir=var_dir, clock=clock)
    for package in PACKAGES:
        package.register(rt)
    jobs = {job.name for job in rt.jobs}
    unknown = sorted({name for name, _ in settings.job_seconds} - jobs)
    if unknown:
        raise ConfigError(f"job_seconds.{unknown[0]}: no such scheduler job; the jobs are {', '.join(sorted(jobs))}")
    return rt


def channel_tls(settings: Settings, *, same_process: bool) -> ChannelTls | None:
    """TLS for the facade's channel: when a CA or a client certificate is configured, or when the gRPC server of the
    same process has TLS on (then, without a CA, its own certificate is the root: right for a self-signed one)."""
    from gateway_http.tls import ChannelTls

    server_tls = same_process and settings.grpc_tls_cert is not None
    if not (settings.grpc_tls_ca or settings.grpc_tls_client_cert or server_tls):
        return None
    roots = settings.grpc_tls_ca or (settings.grpc_tls_cert if server_tls else None)
    client = settings.grpc_tls_client_cert, settings.grpc_tls_client_key
    credentials = grpc.ssl_channel_credentials(
        root_certificates=roots.read_bytes() if roots else None,  # None: the system's roots
        private_key=client[1].read_bytes() if client[1] else None,
        certificate_chain=client[0].read_bytes() if client[0] else None)
    return ChannelTls(credentials, settings.grpc_tls_server_name)


def http_facade(settings: Settings, grpc_target: str, *, same_process: bool,
                in_process: InProcessChannel | None = None) -> Starlette:
    """The HTTP facade of a serving process, calling the gRPC server at `grpc_target` (or, `in_process`, the
    handlers of this process). Imported here only: the core knows no HTTP (issue 9, seam 3)."""
    from gateway_http.app import create_app
    from gateway_http.checkout_page import PageConfig

    return create_app(grpc_target, max_body_bytes=settings.max_body_bytes,
                      channel=channel_tls(settings, same_process=same_process),
                      trusted_proxies=settings.trusted_proxies,
                      checkout_page=PageConfig(base_path=urlsplit(settings.checkout_base).path.rstrip("/"),
                                               card_js_url=settings.card_js_url),
                      in_process=in_process, metrics_route=not settings.metrics_addr)
