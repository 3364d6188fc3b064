"""A waiting sweep tells the operator why once per change of reason (WARNING), and each later pass only at DEBUG
(issue 31: 783 `sweep waits` warnings in 17 minutes for one sweep). On SQLite and PostgreSQL."""

from __future__ import annotations

import logging
from decimal import Decimal

import pytest

from server.ids import new_id
from server.treasury.sweeps import service as sweeps
from server.treasury.sweeps.models import Sweep, SweepStatus
from tests.unit.treasury.world import ETH, World, world  # noqa: F401


def _waiting_sweep(world: World) -> str:  # noqa: F811
    merchant = world.merchant()
    deposit, treasury = world.deposit_address(merchant), world.treasury(merchant)

    async def go() -> str:
        async with world.db.transaction() as s:
            now = world.db.clock.now()
            sweep = Sweep(id=new_id("sw"), merchant_id=merchant, livemode=False, network="ETH-TEST", asset_id=ETH,
                          decimals=18, source_address=deposit, destination_address=treasury,
                          amount=Decimal("0.1"), fee_amount=Decimal("0"), status=SweepStatus.PENDING, created=now,
                          updated=now)
            s.add(sweep)
        return sweep.id

    return world.run(go())  # type: ignore[no-any-return]


def _waits(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, getattr(r, "reason", "")) for r in caplog.records if r.getMessage() == "sweep waits"]


def test_a_sweep_waiting_for_the_same_reason_warns_once_then_logs_at_debug(
        world: World, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    sweep_id = _waiting_sweep(world)
    caplog.set_level(logging.DEBUG, logger="paygate.treasury.sweeps")
    for _ in range(3):
        world.run(sweeps._note(world.rt, sweep_id, "insufficient_gas"))
    assert _waits(caplog) == [(logging.WARNING, "insufficient_gas"), (logging.DEBUG, "insufficient_gas"),
                              (logging.DEBUG, "insufficient_gas")]


def test_a_new_reason_warns_again(world: World, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    sweep_id = _waiting_sweep(world)
    caplog.set_level(logging.DEBUG, logger="paygate.treasury.sweeps")
    for reason in ("insufficient_gas", "insufficient_gas", "node_unreachable", "insufficient_gas"):
        world.run(sweeps._note(world.rt, sweep_id, reason))
    assert [level for level, _ in _waits(caplog)] == [logging.WARNING, logging.DEBUG, logging.WARNING,
                                                       logging.WARNING]
