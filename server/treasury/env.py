"""What the treasury reads of the process: the payments' environment (settings, catalogue, rates, wallet keys,
client secrets, RPC health, clock, rails: refunds and payouts record payment events) and the database. A `Runtime`
is one; the treasury's functions (and the refunds' sender, which pays through them) take a `TreasuryEnv` to say they
need no more: never the card provider accounts, the AML screening, the limiter or the registered jobs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from server.payment_intents.env import Env

if TYPE_CHECKING:
    from server.db import Database


class TreasuryEnv(Env, Protocol):
    @property
    def db(self) -> Database: ...
