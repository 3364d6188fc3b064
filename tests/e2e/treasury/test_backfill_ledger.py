"""`paygate treasury backfill-ledger` on Anvil: a payment and a mined refund whose ledger rows are gone (a database
from before migration 0016) get their opening entries back, so the balance answers what it did; a second run posts
nothing. Sweeps are off, so the scheduler moves nothing while the test deletes and restores the ledger."""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.refunds.support import created, fund_treasury, paid_intent, wait_refund
from tests.e2e.treasury.conftest import Merchant
from tests.harness import Service
from tests.harness import paygate as run_paygate

EXTRA_ENV = {"PAYGATE_SWEEPS": "false"}


def backfill(paygate: Service) -> dict[str, Any]:
    done = run_paygate(paygate.env, paygate.workdir, "treasury", "backfill-ledger", "--json")
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def forget_the_ledger(paygate: Service) -> None:
    engine = sa.create_engine(paygate.database_url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.begin() as conn:
            conn.execute(sa.text("DELETE FROM ledger_entries"))
    finally:
        engine.dispose()


def test_backfill_restores_the_balance_once(chain: Chain, shop: Merchant, paygate: Service) -> None:
    fund_treasury(chain, shop, wei=10**17)  # the refund's ETH, sent by hand (never in the ledger)
    intent = paid_intent(chain, shop, "ETH-ETH-TEST", "30")  # 0.01 ETH
    refund = created(shop, intent["id"], "0.004")
    wait_refund(chain, shop, refund["id"], lambda r: r["status"] == "Success")
    before = ok(shop.api.get("/v1/stats/balance"))
    assert before["available_balance"] != "0", before
    forget_the_ledger(paygate)
    assert ok(shop.api.get("/v1/stats/balance"))["available_balance"] == "0"
    assert backfill(paygate) == {"transfers": 1, "refunds": 1, "network_fees": 0}
    assert ok(shop.api.get("/v1/stats/balance")) == before
    assert backfill(paygate) == {"transfers": 0, "refunds": 0, "network_fees": 0}
    assert ok(shop.api.get("/v1/stats/balance")) == before
