"""What every servicer shares in one process: settings, database, catalogue and authenticator."""

from __future__ import annotations

from dataclasses import dataclass

from server.assets.catalogue import Catalogue
from server.config import Settings
from server.db import Database
from server.rpc.auth import Authenticator


@dataclass(frozen=True)
class Runtime:
    settings: Settings
    db: Database
    catalogue: Catalogue
    auth: Authenticator
