"""Which address is a merchant's treasury (server/wallet/treasuries.py): found for every account, also one allocated
after the first question, and each account derived once per process, not on every question (with thousands of
merchants, every refund and payout address check spent seconds deriving them all again)."""

from __future__ import annotations

from server.rails.evm.derivation import EvmKeys
from server.wallet import treasuries
from tests.unit.treasury.world import EVM, World, world  # noqa: F401


class CountingKeys(EvmKeys):
    """The EVM key scheme, counting the treasuries it derives."""

    def __init__(self) -> None:
        self.derived = 0

    def treasury_address(self, mnemonic: str, account: int) -> str:
        self.derived += 1
        return super().treasury_address(mnemonic, account)


def ask(w: World, address: str, scheme: EvmKeys = EVM) -> bool:
    async def go() -> bool:
        async with w.db.read() as s:
            return await treasuries.is_treasury(s, w.rt.keys, scheme, address)
    return w.run(go())  # type: ignore[no-any-return]


def test_every_merchants_treasury_is_one_and_a_deposit_address_is_not(world: World) -> None:  # noqa: F811
    first, second = world.merchant(), world.merchant()

    assert ask(world, world.treasury(first)) and ask(world, world.treasury(second))
    assert not ask(world, world.deposit_address(first))
    assert not ask(world, "0x" + "ab" * 20)


def test_a_treasury_allocated_after_the_first_question_is_found(world: World) -> None:  # noqa: F811
    world.merchant()
    assert not ask(world, "0x" + "ab" * 20)

    later = world.merchant()

    assert ask(world, world.treasury(later))


def test_each_account_is_derived_once_however_many_questions(world: World) -> None:  # noqa: F811
    merchants = [world.merchant() for _ in range(3)]
    counting = CountingKeys()

    for _ in range(4):
        assert ask(world, world.treasury(merchants[0]), counting)
    world.merchant()
    assert not ask(world, "0x" + "ab" * 20, counting)

    assert counting.derived == 4  # the three accounts once, then only the new one
