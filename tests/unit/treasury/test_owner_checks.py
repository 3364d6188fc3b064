"""Payout addresses and payouts follow the one ownership rule (server/scoping.py, DESIGN §2): the merchant's own live
object named with its test key is `forbidden`; a test object named with the live key, and another merchant's
object, are not found."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Any

import pytest

from server.aml import AmlStatus
from server.context import Caller
from server.errors import Forbidden, NotFound
from server.ids import new_id
from server.treasury.addresses import service as addresses
from server.treasury.addresses.models import AddressStatus, MerchantAddress, VerificationStatus
from server.treasury.approvals.models import ApprovalStatus
from server.treasury.payouts import service as payouts
from server.treasury.payouts.models import Payout as PayoutRow
from server.treasury.payouts.models import PayoutStatus
from tests.unit.treasury.world import USDT, World, world  # noqa: F401

Getter = Callable[[Any, Caller, str], Awaitable[Any]]


def _address(w: World, merchant_id: str, livemode: bool) -> str:
    now = w.db.clock.now()
    row = MerchantAddress(
        id=new_id("ma"), merchant_id=merchant_id, livemode=livemode, network="ETH-TEST", address="0x" + "ab" * 20,
        status=AddressStatus.VERIFIED, verification_id=new_id("mav"), verification_status=VerificationStatus.VERIFIED,
        verification_asset_id=USDT, verification_amount=Decimal("0.01"), aml_status=AmlStatus.APPROVED, created_at=now,
        updated_at=now)
    return _insert(w, row)


def _payout(w: World, merchant_id: str, livemode: bool) -> str:
    now = w.db.clock.now()
    row = PayoutRow(id=new_id("payout"), merchant_id=merchant_id, livemode=livemode, asset_id=USDT, network="ETH-TEST",
                    decimals=6, amount=Decimal(1), merchant_address_id=new_id("ma"), address="0x" + "ab" * 20,
                    status=PayoutStatus.PENDING, approval_status=ApprovalStatus.APPROVED, created=now, updated=now)
    return _insert(w, row)


def _insert(w: World, row: Any) -> str:
    async def go() -> None:
        async with w.db.transaction() as s:
            s.add(row)
    w.run(go())
    return str(row.id)


def _get(w: World, get: Getter, caller: Caller, object_id: str) -> Any:
    async def go() -> Any:
        async with w.db.transaction() as s:
            return await get(s, caller, object_id)
    return w.run(go())


KINDS = {"address": (_address, addresses.get), "payout": (_payout, payouts.get)}


@pytest.mark.parametrize("kind", KINDS)
def test_the_merchants_own_live_object_named_with_its_test_key_is_forbidden(world: World, kind: str) -> None:  # noqa: F811
    make, get = KINDS[kind]
    m = world.merchant()
    with pytest.raises(Forbidden):
        _get(world, get, Caller(m, False, "secret"), make(world, m, True))


@pytest.mark.parametrize("kind", KINDS)
def test_the_merchants_own_test_object_named_with_its_live_key_is_not_found(world: World, kind: str) -> None:  # noqa: F811
    make, get = KINDS[kind]
    m = world.merchant()
    with pytest.raises(NotFound):
        _get(world, get, Caller(m, True, "secret"), make(world, m, False))


@pytest.mark.parametrize("kind", KINDS)
def test_another_merchants_live_object_is_not_found(world: World, kind: str) -> None:  # noqa: F811
    make, get = KINDS[kind]
    m, other = world.merchant(), world.merchant()
    with pytest.raises(NotFound):
        _get(world, get, Caller(other, True, "secret"), make(world, m, True))


@pytest.mark.parametrize("kind", KINDS)
def test_the_merchants_own_object_in_its_mode_is_found(world: World, kind: str) -> None:  # noqa: F811
    make, get = KINDS[kind]
    m = world.merchant()
    object_id = make(world, m, True)
    assert _get(world, get, Caller(m, True, "secret"), object_id).id == object_id
