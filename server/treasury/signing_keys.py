"""The private keys of a merchant's addresses, derived when needed and never stored: the treasury (refunds, gas
top-ups, micro-deposits and payouts are paid from it), and the deposit addresses whose funds a sweep moves. Each is
derived the way the network's chain family derives it (server/rails/base.py `KeyScheme`)."""

from __future__ import annotations

from sqlmodel import select

from server.payment_intents.models import Charge
from server.rails.base import KeyScheme
from server.rails.registry import key_scheme
from server.treasury.env import TreasuryEnv
from server.wallet.models import PermanentDeposit, WalletAccount


def scheme(rt: TreasuryEnv, network: str) -> KeyScheme | None:
    found = rt.catalogue.networks.get(network)
    return key_scheme(found) if found is not None else None


async def treasury(rt: TreasuryEnv, network: str, merchant_id: str, livemode: bool) -> tuple[str, bytes] | None:
    """(stored address, private key) of the merchant's treasury on `network` in that mode; None without an
    account."""
    keys = scheme(rt, network)
    async with rt.db.read() as session:
        account = await session.get(WalletAccount, (merchant_id, livemode))
    if keys is None or account is None or (livemode and not rt.keys.live_ready):
        return None
    mnemonic = rt.keys.mnemonic(livemode)
    return keys.treasury_address(mnemonic, account.account), keys.treasury_key(mnemonic, account.account)


async def deposit(rt: TreasuryEnv, network: str, merchant_id: str, livemode: bool, address: str) -> bytes | None:
    """The private key of one of the merchant's deposit addresses on `network` (a charge's or a permanent one);
    None if not its."""
    keys = scheme(rt, network)
    async with rt.db.read() as session:
        account = await session.get(WalletAccount, (merchant_id, livemode))
        index = (await session.exec(select(Charge.address_index).where(
            Charge.merchant_id == merchant_id, Charge.livemode == livemode,
            Charge.deposit_address == address).limit(1))).first()
        if index is None:
            index = (await session.exec(select(PermanentDeposit.address_index).where(
                PermanentDeposit.merchant_id == merchant_id, PermanentDeposit.livemode == livemode,
                PermanentDeposit.address == address).limit(1))).first()
    if keys is None or account is None or index is None or (livemode and not rt.keys.live_ready):
        return None
    mnemonic = rt.keys.mnemonic(livemode)
    if keys.deposit_address(mnemonic, account.account, index) != address:
        return None
    return keys.deposit_key(mnemonic, account.account, index)
