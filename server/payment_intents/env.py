"""What payments read besides the database: settings, catalogue, rates, wallet keys, client secrets, the RPC health,
the clock and the rails (whether paygate signed a transaction it sees arrive).

A `Runtime` (server/runtime.py) is one; functions of payments and refunds take an `Env` to say they need no more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from server.catalogue.catalogue import Catalogue
from server.catalogue.health import RpcHealth
from server.clock import Clock
from server.config import Settings
from server.payment_intents.client_secret import ClientSecrets
from server.rates import RateSource
from server.wallet.mnemonics import Keys

if TYPE_CHECKING:
    from server.rails.registry import Rails


class Env(Protocol):
    @property
    def settings(self) -> Settings: ...

    @property
    def catalogue(self) -> Catalogue: ...

    @property
    def rates(self) -> RateSource: ...

    @property
    def keys(self) -> Keys: ...

    @property
    def secrets(self) -> ClientSecrets: ...

    @property
    def health(self) -> RpcHealth: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def rails(self) -> Rails: ...
