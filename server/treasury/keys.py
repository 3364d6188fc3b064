"""The private keys of a merchant's addresses, derived when needed and never stored: the treasury, and the deposit
addresses whose funds a sweep moves."""

from __future__ import annotations

from sqlmodel import select

from server.payment_intents.models import Charge
from server.runtime import Runtime
from server.wallet import hd
from server.wallet.models import PermanentDeposit, WalletAccount


async def treasury(rt: Runtime, merchant_id: str, livemode: bool) -> tuple[str, bytes] | None:
    """(lower-case address, private key) of the merchant's treasury in that mode; None without an account."""
    async with rt.db.read() as session:
        account = await session.get(WalletAccount, (merchant_id, livemode))
    if account is None or (livemode and not rt.keys.live_ready):
        return None
    mnemonic = rt.keys.mnemonic(livemode)
    return hd.treasury(mnemonic, account.account), hd.treasury_key(mnemonic, account.account)


async def deposit(rt: Runtime, merchant_id: str, livemode: bool, address: str) -> bytes | None:
    """The private key of one of the merchant's deposit addresses (a charge's or a permanent one); None if not its."""
    async with rt.db.read() as session:
        account = await session.get(WalletAccount, (merchant_id, livemode))
        index = (await session.exec(select(Charge.address_index).where(
            Charge.merchant_id == merchant_id, Charge.livemode == livemode,
            Charge.deposit_address == address).limit(1))).first()
        if index is None:
            index = (await session.exec(select(PermanentDeposit.address_index).where(
                PermanentDeposit.merchant_id == merchant_id, PermanentDeposit.livemode == livemode,
                PermanentDeposit.address == address).limit(1))).first()
    if account is None or index is None or (livemode and not rt.keys.live_ready):
        return None
    mnemonic = rt.keys.mnemonic(livemode)
    if hd.address(mnemonic, account.account, hd.DEPOSIT, index).lower() != address:
        return None
    return hd.private_key(mnemonic, account.account, hd.DEPOSIT, index)
