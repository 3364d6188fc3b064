"""Which address is a merchant's treasury: the reverse of derivation, kept per process.

A treasury is derived from the wallet's seed and the merchant's account number, never stored, and a derivation
cannot be run backwards. Deriving every account's treasury on each question cost 0.15 to 0.4 ms an account: with
thousands of merchants every refund or payout address check took seconds of the event loop. The index derives each
account once per process and key scheme; a question then reads only the account numbers (two integer columns)
to find accounts allocated since, derives those, and looks the address up.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.rails.base import KeyScheme
from server.wallet.mnemonics import Keys
from server.wallet.models import WalletAccount

# Above this many accounts to derive at once, the derivations run in a worker thread: the first question after a
# start, with many merchants, must not hold the event loop.
THREAD_ABOVE = 200


@dataclass
class _Derived:
    known: set[tuple[int, bool]] = field(default_factory=set)  # (account, livemode) derived already
    addresses: set[str] = field(default_factory=set)  # their treasuries, in stored form


# One per key scheme and seed pair (by digest): the derivations are pure, so a process shares them.
_indexes: dict[tuple[type, bytes], _Derived] = {}


def _derive(scheme: KeyScheme, keys: Keys, accounts: list[tuple[int, bool]]) -> list[str]:
    return [scheme.treasury_address(keys.mnemonic(livemode), account) for account, livemode in accounts]


async def is_treasury(session: AsyncSession, keys: Keys, scheme: KeyScheme, address: str) -> bool:
    """Whether `address` (stored form) is the treasury of any merchant account, in either mode (live ones only once
    the live seed is configured: before, no live treasury exists)."""
    seeds = keys.mnemonic(False) + "\x00" + (keys.mnemonic(True) if keys.live_ready else "")
    index = _indexes.setdefault((type(scheme), hashlib.sha256(seeds.encode()).digest()), _Derived())
    rows = await session.exec(select(WalletAccount.account, WalletAccount.livemode))
    new = [(account, livemode) for account, livemode in rows
           if (account, livemode) not in index.known and (keys.live_ready or not livemode)]
    if new:
        derived = (await asyncio.to_thread(_derive, scheme, keys, new) if len(new) > THREAD_ABOVE
                   else _derive(scheme, keys, new))
        index.addresses.update(derived)
        index.known.update(new)
    return address in index.addresses
