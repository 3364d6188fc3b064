"""Opening payment attempts: one open charge per asset, reused while its quote stands, and a cap per intent."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from paygate.v1 import payment_intents_pb2 as pb

from server.config import ConfigError, load_settings
from server.payment_intents import service
from server.payment_intents.env import Env
from server.payment_intents.models import Charge
from server.payment_intents.states import UnexpectedState
from tests.unit.payment_intents.test_chain_listener import ETH, USDT, World, world  # noqa: F401

USDC = "USDC-ETH-TEST"


def choose(w: World, intent_id: str, asset_id: str, env: Env | None = None) -> Charge:
    async def run() -> Charge:
        async with w.db.transaction() as s:
            loaded = await service.update(s, env or w.env, w.cancel_caller, pb.UpdatePaymentIntentRequest(
                id=intent_id, payment_method_type="crypto",
                payment_method_options=pb.PaymentMethodOptionsInput(crypto=pb.CryptoPaymentInput(asset_id=asset_id))))
        assert loaded.latest_charge is not None
        return loaded.latest_charge

    return w.run(run())  # type: ignore[no-any-return]


def test_re_choosing_an_asset_returns_its_open_charge_even_after_another_asset(world: World) -> None:  # noqa: F811
    intent_id, usdt = world.intent_paying()
    eth = choose(world, intent_id, ETH)
    again = choose(world, intent_id, USDT)
    assert (again.id, again.deposit_address, again.amount) == (usdt.id, usdt.deposit_address, usdt.amount)
    assert choose(world, intent_id, ETH).id == eth.id
    assert len(world.charges(intent_id)) == 2


def test_charges_per_intent_are_capped_by_the_setting(world: World) -> None:  # noqa: F811
    env = dataclasses.replace(world.env, settings=dataclasses.replace(world.env.settings, max_charges_per_intent=3))
    intent_id, first = world.intent_paying()
    choose(world, intent_id, ETH, env)
    choose(world, intent_id, USDC, env)
    with pytest.raises(UnexpectedState, match="at most 3 payment attempts"):
        world.clock.at(first.quote_expires_at + 1)  # every quote lapsed
        choose(world, intent_id, USDT, env)
    assert len(world.charges(intent_id)) == 3


def test_the_default_cap_is_twenty_attempts(world: World) -> None:  # noqa: F811
    assert world.env.settings.max_charges_per_intent == 20
    intent_id, charge = world.intent_paying()
    for _ in range(19):  # each quote lapsed: a new attempt, a new address
        world.clock.at(charge.quote_expires_at + 1)
        charge = choose(world, intent_id, USDT)
    assert len(world.charges(intent_id)) == 20
    world.clock.at(charge.quote_expires_at + 1)
    with pytest.raises(UnexpectedState):
        choose(world, intent_id, USDT)
    assert len(world.charges(intent_id)) == 20


def test_the_cap_is_read_from_the_config_file_and_checked(tmp_path: Path) -> None:
    config = tmp_path / "paygate.toml"
    config.write_text("max_charges_per_intent = 5\n")
    assert load_settings({"PAYGATE_CONFIG": str(config)}).max_charges_per_intent == 5
    for bad in ("0", "true", '"5"'):
        config.write_text(f"max_charges_per_intent = {bad}\n")
        with pytest.raises(ConfigError, match="max_charges_per_intent"):
            load_settings({"PAYGATE_CONFIG": str(config)})
