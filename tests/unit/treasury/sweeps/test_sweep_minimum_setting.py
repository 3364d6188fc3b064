"""The sweep job reads the minimum per asset from the Runtime's settings (`sweep_minimums`): an address holding less
than it is neither a sweep candidate nor claimed."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

from server.treasury.sweeps import service as sweeps
from tests.unit.treasury.world import USDT, World, world  # noqa: F401


def _raise_minimum(w: World, asset_id: str, amount: str) -> None:
    settings = dataclasses.replace(w.rt.settings, sweep_minimums=((asset_id, Decimal(amount)),))
    w.rt = dataclasses.replace(w.rt, settings=settings)


def _candidates(w: World) -> list[tuple[str, bool, str, str, str]]:
    found: list[sweeps.Candidate] = w.run(sweeps.candidates(w.rt))
    return [c.key for c in found]


def test_an_address_above_the_default_minimum_is_a_candidate(world: World) -> None:  # noqa: F811
    m = world.merchant()
    address = world.deposit_address(m)
    world.transfer(address, "10", "confirmed", "approved")
    assert [(c[3], c[4]) for c in _candidates(world)] == [(address, USDT)]


def test_a_raised_minimum_leaves_the_address_unswept(world: World) -> None:  # noqa: F811
    m = world.merchant()
    address = world.deposit_address(m)
    world.transfer(address, "10", "confirmed", "approved")
    _raise_minimum(world, USDT, "10.01")
    assert _candidates(world) == []
    assert world.run(sweeps.claim(world.rt, sweeps.Candidate((m, False, "ETH-TEST", address, USDT), ()))) is None
