"""What payments need besides the database: settings, catalogue, rates, wallet keys and client secrets.

Built once per process. The chain listener is called by the watcher without a runtime, so it reads the
process's Env here: set by the servicer at start, or built from the same configuration on first use (a
scheduler-only process).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from server import keyfiles
from server.assets.catalogue import Catalogue, load
from server.config import Settings, load_settings
from server.payment_intents.client_secret import ClientSecrets
from server.rates import RateSource, TableRates
from server.wallet.keys import Keys


@dataclass(frozen=True)
class Env:
    settings: Settings
    catalogue: Catalogue
    rates: RateSource
    keys: Keys
    secrets: ClientSecrets

    @classmethod
    def build(cls, settings: Settings, catalogue: Catalogue | None = None, var_dir: Path = keyfiles.VAR) -> Env:
        return cls(settings=settings,
                   catalogue=catalogue or load(settings.networks_file, settings.providers),
                   rates=TableRates(settings.rates),
                   keys=Keys.of(settings, var_dir),
                   secrets=ClientSecrets(settings.secret_key, var_dir))


_current: Env | None = None


def configure(env: Env) -> None:
    global _current
    _current = env


def current(settings: Settings | None = None, catalogue: Catalogue | None = None) -> Env:
    """The process's Env; on first use built from `settings` (a runtime's) or from the configuration."""
    global _current
    if _current is None:
        _current = Env.build(settings or load_settings(), catalogue)
    return _current
