"""The composition root: one Runtime per process, with every package's listeners and jobs registered into it.

Called once at start-up by `paygate serve` (server/serve.py), the CLI's commands (server/cli.py, server/demo.py)
and by tests that run the domain in-process. A new package with listeners or jobs adds its `register` here.
"""

from __future__ import annotations

from pathlib import Path

from scheduler import jobs as scheduler_jobs
from server import keyfiles
from server.assets.catalogue import Catalogue
from server.clock import Clock
from server.config import Settings
from server.db import Database
from server.payment_intents import wiring as payment_intents
from server.refunds import wiring as refunds
from server.runtime import Runtime
from server.subscriptions import wiring as subscriptions
from server.treasury import wiring as treasury
from server.webhooks import wiring as webhooks

REGISTRATIONS = (payment_intents.register, refunds.register, webhooks.register, subscriptions.register,
                 treasury.register, scheduler_jobs.register)


def compose(settings: Settings, *, db: Database | None = None, catalogue: Catalogue | None = None,
            var_dir: Path = keyfiles.VAR, clock: Clock | None = None) -> Runtime:
    rt = Runtime.build(settings, db=db, catalogue=catalogue, var_dir=var_dir, clock=clock)
    for register in REGISTRATIONS:
        register(rt)
    return rt
