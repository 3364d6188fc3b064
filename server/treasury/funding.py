"""Funds a merchant sends to its own treasury by hand (`paygate treasury record-funding --network N --tx HASH`).

The treasury pays the gas of token sweeps' top-ups, token refunds, cancels and payouts out of the merchant's
available native coin. A treasury funded by hand holds coin the ledger never saw (reconciliation shows it as drift),
so that gas could take the merchant's available native balance below zero. Recording the funding posts it as what it
is, money the merchant brought in: the world outside → available at the treasury, one posting per transfer.

It reads the transaction on chain (mined, successful, at the network's confirmation depth) and takes only its
transfers to a treasury; one paygate signed itself (a sweep, a top-up, a payout) is refused, since its sender posted
it. Recording the same transaction again posts nothing. Nothing else is ever inferred: reconciliation still only
reports drift, and recording is the operator's decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from sqlmodel import select

from server.catalogue.catalogue import Network
from server.rails.base import ChainUnavailable, InvalidTxHash, TransferLookup
from server.rails.registry import chain_scanners, key_scheme
from server.treasury.env import TreasuryEnv
from server.treasury.ledger import postings
from server.treasury.ledger.postings import Scope
from server.wallet.models import WalletAccount


class FundingRefused(Exception):
    """The transaction cannot be recorded as a funding; the message says why (the CLI prints it)."""


@dataclass(frozen=True)
class Funding:
    merchant_id: str
    livemode: bool
    network: str
    address: str
    asset_id: str
    amount: Decimal
    cause_id: str
    posted: bool  # False: recorded before, nothing posted this time


def cause_id(tx_hash: str, log_index: int) -> str:
    """The posting's cause: the transaction's hash cut to 128 bits (cause ids hold 40 characters) and the log index
    (-1 for a native transfer)."""
    return f"{tx_hash[:34]}:{log_index}"  # the rail's stored form: one spelling per transaction


async def _treasuries(rt: TreasuryEnv, network: Network) -> dict[str, str]:
    """The treasury address on `network` → merchant id, for every merchant with a wallet account in its mode."""
    livemode, scheme = network.is_mainnet, key_scheme(network)
    async with rt.db.read() as session:
        accounts = list(await session.exec(select(WalletAccount).where(WalletAccount.livemode == livemode)))
    if livemode and not rt.keys.live_ready:
        return {}
    mnemonic = rt.keys.mnemonic(livemode)
    return {scheme.treasury_address(mnemonic, a.account): a.merchant_id for a in accounts}


async def record(rt: TreasuryEnv, network_id: str, tx_hash: str) -> list[Funding]:
    network = rt.catalogue.networks.get(network_id)
    if network is None:
        raise FundingRefused(f"--network: unknown network {network_id!r}")
    book = rt.rails.addresses(network_id)
    if book is None:
        raise FundingRefused(f"--network: {network_id} cannot be read (no RPC endpoint)")
    try:
        tx_hash = book.normalize_tx_hash(tx_hash.strip())
    except InvalidTxHash as e:
        raise FundingRefused(f"--tx: {e}") from None
    treasuries = await _treasuries(rt, network)
    scanners = chain_scanners(rt.catalogue)
    try:
        scanner = scanners.get(network_id)
        if scanner is None or not isinstance(scanner, TransferLookup):
            raise FundingRefused(f"--network: {network_id} cannot be read (no RPC endpoint)")
        transfers, head = await scanner.transfers_of(tx_hash, set(treasuries))
    except ChainUnavailable as e:
        raise FundingRefused(f"--network: {network_id} did not answer ({e}); try again later") from None
    finally:
        for each in scanners.values():
            await each.close()
    if not transfers:
        raise FundingRefused(f"--tx: {tx_hash} is not a mined, successful transfer to a treasury on {network_id}")
    depth = head - transfers[0].block_number + 1
    if depth < network.confirmations:
        raise FundingRefused(f"--tx: {depth} confirmation(s) of {network.confirmations}; try again later")
    done: list[Funding] = []
    async with rt.db.transaction() as session:
        if await rt.rails.signed_here(session, network_id, [tx_hash, transfers[0].tx_hash]):
            raise FundingRefused(f"--tx: {tx_hash} was sent by paygate itself; its sender posted it")
        for t in transfers:
            merchant_id = treasuries[t.to_address]  # both in the rail's stored form
            # The merchant's wallet row, locked: two runs recording one transaction post it once.
            await session.get(WalletAccount, (merchant_id, network.is_mainnet), with_for_update=True)
            scope = Scope(merchant_id, network.is_mainnet, t.asset_id, network_id)
            cause = cause_id(t.tx_hash, t.log_index)
            amount = Decimal(t.amount_base).scaleb(-t.decimals)
            posted = await postings.funded(session, scope, cause, t.to_address, amount)
            done.append(Funding(merchant_id, network.is_mainnet, network_id, t.to_address, t.asset_id,
                                amount, cause, posted is not None))
    return done
