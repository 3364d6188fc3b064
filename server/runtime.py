"""The composition root's product: every long-lived dependency of one process, built once at start-up.

`build_runtime(settings)` (server/boot/composition.py) makes the database, the catalogue, the authenticator, the
rates, the wallet keys, the client secrets, the webhook sealing key, the AML screening, the chain rails, the RPC
health probe and the clock; `compose(settings)` builds one and lets each package register its servicer, listeners
and jobs into it (`register(runtime)` in each package's `wiring.py`). Servicers, listeners and jobs receive it
explicitly; nothing reads it from a module global. Tests build their own (`build_runtime(settings, clock=…)`).
Its parts' types are imported for type checking only: at run time this module imports none of the packages that
take it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from server.background import Tasks
from server.clock import Clock
from server.config import Settings

if TYPE_CHECKING:
    from server.aml import Screening
    from server.cards.accounts import Cards
    from server.catalogue.catalogue import Catalogue
    from server.catalogue.health import RpcHealth
    from server.db import Database
    from server.payment_intents.client_secret import ClientSecrets
    from server.rails.base import ChainScanner
    from server.rails.registry import Rails
    from server.ratelimit.limiter import Limiter
    from server.rates import RateSource
    from server.rpc.auth import Authenticator
    from server.sealing import SecretBox
    from server.wallet.mnemonics import Keys


class Job(NamedTuple):
    """A periodic scheduler job: `run(runtime)` every `seconds`, under the id `name`."""

    name: str
    run: Callable[[Runtime], Awaitable[None]]
    seconds: float


@dataclass(frozen=True, eq=False)  # one per process: compared by identity
class Runtime:
    settings: Settings
    db: Database
    catalogue: Catalogue
    auth: Authenticator
    limiter: Limiter  # one per process: on PostgreSQL its buckets hold a pool of their own
    rates: RateSource
    keys: Keys
    secrets: ClientSecrets
    box: SecretBox  # webhook signing secrets and card provider keys at rest
    screening: Screening
    scanners: dict[str, ChainScanner]  # the watcher's scanner per watchable network (rpc_url set)
    rails: Rails  # receiving and paying out, per network and per card provider
    cards: Cards  # the merchants' card provider accounts (DESIGN §9)
    health: RpcHealth  # whether each network's RPC answered recently: what makes its assets payable (DESIGN §12)
    clock: Clock
    jobs: list[Job] = field(default_factory=list)  # filled by the packages' register(runtime) at start-up
    # The gRPC service each package implements (full name → servicer factory), filled by register(runtime) too.
    servicers: dict[str, Callable[[Runtime], object]] = field(default_factory=dict)
    tasks: Tasks = field(default_factory=Tasks)  # work a call starts and does not wait for (server/background.py)

    def add_servicers(self, services: Mapping[str, Callable[[Runtime], object]]) -> None:
        """`services` by the API's full name (`paygate.v1.CustomerService`); two packages claiming one is a bug."""
        for service, factory in services.items():
            if service in self.servicers:
                raise ValueError(f"{service} is registered twice")
            self.servicers[service] = factory

    def add_job(self, name: str, run: Callable[[Runtime], Awaitable[None]], seconds: float) -> None:
        """`seconds` is the job's default; the operator's `job_seconds` setting for `name` wins."""
        self.jobs.append(Job(name, run, dict(self.settings.job_seconds).get(name, seconds)))
