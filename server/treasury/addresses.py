"""Payout addresses (`/v1/addresses`, DESIGN §15): created screened by AML, proven by a micro-deposit the merchant
reads back (three tries), then usable as a payout destination. Each call runs in the caller's unit of work."""

from __future__ import annotations

import secrets
from decimal import Decimal

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import validate
from server.aml import AmlStatus
from server.assets.catalogue import Catalogue
from server.chains.models import WatchedAddress
from server.clock import now_of
from server.config import Settings
from server.errors import Conflict, DomainError, MissingParameter, invalid
from server.ids import new_id
from server.paging import Page, newest_first
from server.rails.base import InvalidAddress
from server.rails.registry import Rails, key_scheme
from server.rpc.context import Caller
from server.scoping import get_owned, in_scope
from server.treasury.models import AddressStatus, MerchantAddress, VerificationStatus
from server.treasury.sweeps import native_of
from server.wallet import treasuries
from server.wallet.keys import Keys

RESOURCE = "address"
MAX_TRIES = 3
MAX_PAGE_SIZE = 50
# The micro-deposit: 1000 to 9999 units of 10^-10 of the native coin (0.0000001000 to 0.0000009999 ETH).
MICRO_DIGITS = 10


class VerificationFailed(DomainError):
    """A wrong amount: counted (the try is kept even though the call is refused)."""

    reason = "verification_amount_invalid"
    keep_changes = True


def micro_amount() -> Decimal:
    return Decimal(1000 + secrets.randbelow(9000)).scaleb(-MICRO_DIGITS)


def screen(settings: Settings, address: str) -> tuple[AmlStatus, str]:
    """The configured deny list decides for addresses as it does for senders (server/aml)."""
    if address.lower() in {a.lower() for a in settings.aml_deny_list}:
        return AmlStatus.REJECTED, f"address {address} is on the deny list"
    return AmlStatus.APPROVED, ""


async def is_paygate_address(session: AsyncSession, keys: Keys, catalogue: Catalogue, network: str,
                             address: str) -> bool:
    """Whether `address` (in its stored form) is one of paygate's own on `network`: a deposit address (a charge's or
    a permanent one: every one is watched, and its row kept) or any merchant's treasury in either mode. Money sent
    there stays inside the gateway: the watcher ignores what paygate itself signed, so a refund or payout to it reads
    as paid while the customer or merchant receives nothing and the ledger drifts from the chain."""
    family = catalogue.networks[network].family
    # The same key makes the same address on every network of a family: a deposit address of another network is
    # paygate's here too. The (network, address) primary key serves this lookup.
    siblings = [n.id for n in catalogue.networks.values() if n.family == family]
    watched = (await session.exec(select(WatchedAddress.owner_id).where(
        col(WatchedAddress.network).in_(siblings), WatchedAddress.address == address))).first()
    scheme = key_scheme(catalogue.networks[network])
    return watched is not None or await treasuries.is_treasury(session, keys, scheme, address)


async def check_not_paygate(session: AsyncSession, keys: Keys, catalogue: Catalogue, network: str, field: str,
                            address: str) -> None:
    """`400 parameter_invalid` naming `field` when `address` (stored form) is paygate's own (`is_paygate_address`)."""
    if await is_paygate_address(session, keys, catalogue, network, address):
        raise invalid(field, f"{address!r} is a paygate address (a merchant treasury or a deposit address); money "
                             "sent there would reach no one")


def _network(catalogue: Catalogue, caller: Caller, network: str) -> str:
    network = network.strip()
    if not network:
        raise MissingParameter("network")
    known = {a.network for a in catalogue.for_mode(caller.livemode) if a.network}
    if network not in known:
        raise invalid("network", f"{network!r} is not a network of this mode")
    return network


async def create(session: AsyncSession, catalogue: Catalogue, rails: Rails, settings: Settings, keys: Keys,
                 caller: Caller, network: str, address: str, alias: str) -> MerchantAddress:
    network = _network(catalogue, caller, network)
    book = rails.addresses(network)
    if not address.strip():
        raise MissingParameter("address")
    if book is None:
        raise invalid("network", f"{network!r} has no node configured")
    try:
        stored = book.normalize_address(address.strip())
    except InvalidAddress as e:
        raise invalid("address", str(e)) from None
    if len(alias) > 200:
        raise invalid("alias", "at most 200 characters")
    await check_not_paygate(session, keys, catalogue, network, "address", stored)
    taken = (await session.exec(select(MerchantAddress.id).where(
        MerchantAddress.merchant_id == caller.merchant_id, MerchantAddress.livemode == caller.livemode,
        MerchantAddress.network == network, MerchantAddress.address == stored,
        MerchantAddress.deleted_at == 0))).first()
    if taken is not None:
        raise Conflict(f"address: already added as {taken}", reason="address_exists", field="address")
    native = native_of(catalogue, network)
    assert native is not None, "a network with a rail has a native coin"
    aml, info = screen(settings, stored)
    rejected = aml == AmlStatus.REJECTED
    now = now_of(session)
    row = MerchantAddress(
        id=new_id("ma"), merchant_id=caller.merchant_id, livemode=caller.livemode, network=network, address=stored,
        alias=alias, status=AddressStatus.FAILED if rejected else AddressStatus.PENDING_VERIFICATION,
        verification_id=new_id("mav"),
        verification_status=VerificationStatus.FAILED if rejected else VerificationStatus.PENDING,
        verification_asset_id=native.id, verification_amount=micro_amount(), aml_status=aml, aml_info=info,
        created_at=now, updated_at=now)
    session.add(row)
    await session.flush()
    return row


async def get(session: AsyncSession, caller: Caller, address_id: str, *, lock: bool = False) -> MerchantAddress:
    return await get_owned(session, MerchantAddress, address_id.strip(), caller, RESOURCE,
                           alive=lambda r: not r.deleted_at, lock=lock)


async def update(session: AsyncSession, caller: Caller, address_id: str, alias: str) -> MerchantAddress:
    row = await get(session, caller, address_id, lock=True)
    if len(alias) > 200:
        raise invalid("alias", "at most 200 characters")
    row.alias, row.updated_at = alias, now_of(session)
    session.add(row)
    return row


async def delete(session: AsyncSession, caller: Caller, address_id: str) -> None:
    """Kept as a row (its micro-deposit's transaction refers to it), gone from the API."""
    row = await get(session, caller, address_id, lock=True)
    row.deleted_at = row.updated_at = now_of(session)
    session.add(row)


async def verify(session: AsyncSession, caller: Caller, address_id: str, amount: str) -> MerchantAddress:
    row = await get(session, caller, address_id, lock=True)
    if not amount.strip():
        raise MissingParameter("amount")
    # The strict money syntax of every amount input (DESIGN §14), refused before a try is counted.
    given = validate.amount("amount", amount)
    if row.status == AddressStatus.VERIFIED:
        return row
    if row.status == AddressStatus.FAILED:
        raise Conflict("address: its verification failed; add the address again", reason="address_verification_failed")
    if row.verification_status != VerificationStatus.SENT:
        raise Conflict("address: the micro-deposit is not confirmed on chain yet", reason="verification_not_sent")
    now = now_of(session)
    row.updated_at = now
    if given == row.verification_amount:
        row.status, row.verification_status, row.verified_at = (AddressStatus.VERIFIED, VerificationStatus.VERIFIED,
                                                                now)
        session.add(row)
        return row
    row.tried_times += 1
    if row.tried_times >= MAX_TRIES:
        row.status, row.verification_status = AddressStatus.FAILED, VerificationStatus.FAILED
    session.add(row)
    await session.flush()
    left = MAX_TRIES - row.tried_times
    raise VerificationFailed(f"amount: not the amount sent; {left} tries left" if left else
                             "amount: not the amount sent; the address failed verification", field="amount")


async def list_page(session: AsyncSession, caller: Caller, page: Page, network: str) -> tuple[list[MerchantAddress],
                                                                                              int]:
    where = [*in_scope(MerchantAddress, caller), MerchantAddress.deleted_at == 0]
    if network.strip():
        where.append(MerchantAddress.network == network.strip())
    return await newest_first(session, MerchantAddress, where, page)
