"""The composition root's product: every long-lived dependency of one process, built once at start-up.

`Runtime.build(settings)` makes the database, the catalogue, the authenticator, the rates, the wallet keys, the
client secrets, the webhook sealing key, the AML screening, the chain rails, the RPC health probe and the clock;
`compose(settings)` (server/boot/composition.py) builds one and lets each package register its servicer, listeners
and jobs into it (`register(runtime)` in each package's `wiring.py`). Servicers, listeners and jobs receive it
explicitly; nothing reads it from a module global. Tests build their own (`Runtime.build(settings, clock=…)`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from server import keyfiles
from server.aml import Screening
from server.assets.catalogue import Catalogue, load
from server.assets.health import RpcHealth
from server.background import Tasks
from server.cards.accounts import Cards
from server.clock import Clock, SystemClock
from server.config import Settings
from server.db import Database
from server.payment_intents.client_secret import ClientSecrets
from server.rails.base import ChainScanner
from server.rails.registry import Rails, card_rails, chain_scanners, probe
from server.ratelimit.limiter import Limiter
from server.rates import RateSource, TableRates
from server.rpc.auth import Authenticator
from server.sealing import SecretBox
from server.wallet.keys import Keys


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

    @classmethod
    def build(cls, settings: Settings, *, db: Database | None = None, catalogue: Catalogue | None = None,
              var_dir: Path = keyfiles.VAR, clock: Clock | None = None) -> Runtime:
        """Raises CatalogueError (a bad networks file) and WalletError (a bad mnemonic) before anything runs."""
        catalogue = catalogue or load(settings.networks_file, settings.providers)
        clock = clock or (db.clock if db is not None else SystemClock())
        db = db or Database(settings.database_url, pool_size=settings.database_pool_size,
                            group_commit=settings.sqlite_group_commit, clock=clock,
                            transaction_pooling=settings.database_transaction_pooling)
        if db.clock is not clock:  # rows stamped on one clock, due-checks on another: the bug this prevents
            raise ValueError("the runtime's clock must be its database's: build the Database with clock=")
        box = SecretBox(settings.encryption_key, var_dir)
        return cls(settings=settings, db=db, catalogue=catalogue, auth=Authenticator(db),
                   limiter=Limiter.from_settings(settings, db),
                   rates=TableRates(settings.rates), keys=Keys.of(settings, var_dir),
                   secrets=ClientSecrets(settings.secret_key, var_dir),
                   box=box, screening=Screening.from_settings(settings),
                   scanners=chain_scanners(catalogue), rails=Rails(catalogue, db, settings),
                   cards=Cards(box=box, rails=card_rails(settings)),
                   health=RpcHealth(catalogue.networks.values(), probe), clock=clock)

    def add_servicers(self, services: Mapping[str, Callable[[Runtime], object]]) -> None:
        """`services` by the API's full name (`paygate.v1.CustomerService`); two packages claiming one is a bug."""
        for service, factory in services.items():
            if service in self.servicers:
                raise ValueError(f"{service} is registered twice")
            self.servicers[service] = factory

    def add_job(self, name: str, run: Callable[[Runtime], Awaitable[None]], seconds: float) -> None:
        """`seconds` is the job's default; the operator's `job_seconds` setting for `name` wins."""
        self.jobs.append(Job(name, run, dict(self.settings.job_seconds).get(name, seconds)))
