"""Reading what the service decided without changing anything: the ledger's sums at one address (from its database,
read only) and its JSON log lines."""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

import sqlalchemy as sa

from tests.chain import Chain
from tests.harness import Service, log_lines

WAIT_SECONDS = 90


def ledger_at(paygate: Service, address: str, asset_id: str) -> dict[str, Decimal]:
    """account → the sum of the ledger's legs at `address` in `asset_id`."""
    engine = sa.create_engine(paygate.database_url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT account, amount FROM ledger_entries WHERE lower(address) = :a "
                                        "AND asset_id = :s"), {"a": address.lower(), "s": asset_id}).all()
    finally:
        engine.dispose()
    sums: dict[str, Decimal] = {}
    for account, amount in rows:
        sums[account] = sums.get(account, Decimal(0)) + Decimal(amount)
    return sums


def wait_logged(chain: Chain, paygate: Service, **fields: Any) -> dict[str, Any]:
    """The first JSON log line of the service carrying every one of `fields`, once it is written (blocks mined
    meanwhile, as the scheduler's passes need)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        found = log_lines(paygate, **fields)
        if found:
            return found[0]
        assert time.monotonic() < deadline, f"never logged: {fields}"
        chain.mine(1)
        time.sleep(0.5)
