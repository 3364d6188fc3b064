"""Payout addresses (`/v1/addresses`, DESIGN §15, §16): created screened by AML, then proven, then usable as a payout
destination. Each call runs in the caller's unit of work.

Proof. The address's key signs `message_of` the row, the text below naming paygate, the merchant, the mode, the
network, the address and a single-use nonce, as the network's wallets sign text (EVM: EIP-191 `personal_sign`, the
family's `MessageSigning`). A wrong signature (another key, another message, an old nonce) costs the nonce: a new
one is drawn, so no signature is ever accepted twice. A wallet that cannot sign gives back instead the random
micro-deposit paygate sent it (three tries); that amount is a public transfer anyone can read, so it proves nothing
until an approver approves the address too (status `pending_approval` until then).

Four eyes. A live address waits for an approver's approval whatever its proof (`approval_status` `pending` from its
creation; approvals.py decides it as resource type `payout_address`, before or after the proof). One rejection
fails the address.

Re-adding. An address the merchant deleted within the last 24 h and adds again receives no payout until 24 h after
it was added again (`usable_from`, checked by `check_usable` when a payout names it).
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import validate
from server.aml import AmlStatus, DenyList
from server.catalogue.catalogue import Asset, Catalogue
from server.chains.models import WatchedAddress
from server.clock import now_of
from server.config import Settings
from server.context import Caller
from server.errors import Conflict, DomainError, MissingParameter, invalid
from server.ids import new_id
from server.paging import Page, newest_first
from server.rails.base import InvalidAddress, InvalidSignature, KeyScheme, MessageSigning, PayoutOutputs
from server.rails.registry import Rails, key_scheme
from server.scoping import get_owned, in_scope
from server.treasury.addresses import states as address_states
from server.treasury.addresses.models import AddressStatus, MerchantAddress, ProofMethod, VerificationStatus
from server.treasury.addresses.states import Event, VerificationEvent
from server.treasury.approvals import states as approval_states
from server.treasury.approvals.models import ApprovalStatus
from server.treasury.approvals.states import Event as ApprovalEvent
from server.treasury.sweeps.service import native_of
from server.wallet import treasuries
from server.wallet.mnemonics import Keys

RESOURCE = "address"
MAX_TRIES = 3
MAX_PAGE_SIZE = 50
# The micro-deposit: 1000 to 9999 units of 10^-10 of the native coin (0.0000001000 to 0.0000009999 ETH), or, on a
# rail whose outputs have a floor (`PayoutOutputs`, UTXO dust) or a coin with fewer decimals, one of as many amounts
# from that floor up in the coin's own smallest units (LTC: 0.00002940 to 0.00011939 to a P2WPKH address).
MICRO_DIGITS = 10
MICRO_LOW, MICRO_CHOICES = 1000, 9000
APPROVALS = 1  # an approver's approval (DESIGN §16)
READD_WAIT_SECONDS = 24 * 3600
# What the address's key signs: documented word for word in the README and the proto, so that a merchant can sign it
# in any wallet. Lines end with "\n" and the last has none.
MESSAGE = ("paygate payout address verification\n"
           "Merchant: {merchant_id}\n"
           "Mode: {mode}\n"
           "Network: {network}\n"
           "Address: {address}\n"
           "Nonce: {nonce}")
# Proven, and approved where approval applies: usable.
READY = (ApprovalStatus.NOT_REQUIRED, ApprovalStatus.APPROVED)
WAITING = (AddressStatus.PENDING_VERIFICATION, AddressStatus.PENDING_APPROVAL)
PROOF_EVENTS = {ProofMethod.SIGNATURE: VerificationEvent.SIGNATURE_MATCHED,
                ProofMethod.MICRO_DEPOSIT: VerificationEvent.AMOUNT_MATCHED}


class VerificationFailed(DomainError):
    """A wrong amount: counted (the try is kept even though the call is refused)."""

    reason = "verification_amount_invalid"
    keep_changes = True


class SignatureRefused(DomainError):
    """A well-formed signature that is not the address's of its current message: its nonce is replaced (kept)."""

    reason = "verification_signature_invalid"
    keep_changes = True


def micro_amount(decimals: int = 18, smallest: int | None = None) -> Decimal:
    """A random micro-deposit of a coin of `decimals`, where the rail sends no output below `smallest` (its
    smallest units; None: any positive amount)."""
    if smallest is None and decimals >= MICRO_DIGITS:
        return Decimal(MICRO_LOW + secrets.randbelow(MICRO_CHOICES)).scaleb(-MICRO_DIGITS)
    return Decimal(max(smallest or 1, 1) + secrets.randbelow(MICRO_CHOICES)).scaleb(-decimals)


def micro_amount_for(rails: Rails, native: Asset, destination: str) -> Decimal:
    """The micro-deposit to `destination` (stored form), drawn above the least its rail can send there."""
    payouts = rails.payouts(native.network)
    smallest = payouts.smallest_output(native, destination) if isinstance(payouts, PayoutOutputs) else None
    return micro_amount(native.decimals, smallest)


def new_nonce() -> str:
    return secrets.token_hex(16)


def message_of(row: MerchantAddress, shown_address: str) -> str:
    """The text the address's key signs now (`shown_address`: the address as clients are shown it)."""
    return MESSAGE.format(merchant_id=row.merchant_id, mode="live" if row.livemode else "test", network=row.network,
                          address=shown_address, nonce=row.verification_nonce)


def to_sign(row: MerchantAddress, scheme: KeyScheme | None) -> str:
    """The message shown to the merchant: "" once proven, or when the network's wallets cannot sign."""
    if not row.verification_nonce or not isinstance(scheme, MessageSigning):
        return ""
    return message_of(row, scheme.display_address(row.address))


def check_usable(row: MerchantAddress, field: str, now: int) -> None:
    """`400 parameter_invalid` naming `field` while a re-added address still waits (module docstring)."""
    if row.usable_from > now:
        at = datetime.fromtimestamp(row.usable_from, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        raise invalid(field, f"payout address {row.id} was added again within {READD_WAIT_SECONDS // 3600} h of its "
                             f"deletion; it can receive payouts from {at} (unix {row.usable_from})")


def screen(settings: Settings, rails: Rails, network: str, address: str) -> tuple[AmlStatus, str]:
    """The configured deny list decides for addresses as it does for senders (server/aml), in the network's form."""
    if DenyList(settings.aml_deny_list, rails.addresses).denies(network, address):
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
    aml, info = screen(settings, rails, network, stored)
    rejected = aml == AmlStatus.REJECTED
    now = now_of(session)
    deleted_lately = (await session.exec(select(MerchantAddress.id).where(
        MerchantAddress.merchant_id == caller.merchant_id, MerchantAddress.livemode == caller.livemode,
        MerchantAddress.network == network, MerchantAddress.address == stored,
        col(MerchantAddress.deleted_at) > now - READD_WAIT_SECONDS).limit(1))).first()
    approve = caller.livemode and not rejected
    row = MerchantAddress(
        id=new_id("ma"), merchant_id=caller.merchant_id, livemode=caller.livemode, network=network, address=stored,
        alias=alias, status=AddressStatus.FAILED if rejected else AddressStatus.PENDING_VERIFICATION,
        verification_id=new_id("mav"),
        verification_status=VerificationStatus.FAILED if rejected else VerificationStatus.PENDING,
        verification_asset_id=native.id, verification_amount=micro_amount_for(rails, native, stored),
        verification_nonce="" if rejected else new_nonce(),
        approval_status=ApprovalStatus.PENDING if approve else ApprovalStatus.NOT_REQUIRED,
        approvals_required=APPROVALS if approve else 0, created_by_key=caller.key_id,
        usable_from=now + READD_WAIT_SECONDS if deleted_lately is not None else 0,
        aml_status=aml, aml_info=info, created_at=now, updated_at=now)
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


def _proven(row: MerchantAddress, method: ProofMethod, now: int) -> None:
    """Control proven by `method`: verified, or waiting for the approver a micro-deposit or live mode needs."""
    if method == ProofMethod.MICRO_DEPOSIT and approval_states.allowed(row.approval_status, ApprovalEvent.REQUIRED):
        row.approval_status = approval_states.next_status(row.approval_status, ApprovalEvent.REQUIRED)
        row.approvals_required = APPROVALS
    row.verification_status = address_states.next_verification(row.verification_status, PROOF_EVENTS[method])
    row.proof_method, row.verified_at, row.verification_nonce = method, now, ""
    proven = Event.PROVEN if row.approval_status in READY else Event.PROVEN_AWAITING_APPROVAL
    row.status = address_states.next_status(row.status, proven)


async def verify(session: AsyncSession, catalogue: Catalogue, caller: Caller, address_id: str, amount: str,
                 signature: str) -> MerchantAddress:
    row = await get(session, caller, address_id, lock=True)
    signature = signature.strip()
    if not signature and not amount.strip():
        raise MissingParameter("signature", "signature: is required (or amount, the micro-deposit received, for a "
                                            "wallet that cannot sign)")
    if signature and amount.strip():
        raise invalid("signature", "give signature or amount, not both")
    # The strict money syntax of every amount input (DESIGN §14, unstripped), refused before a try is counted.
    given = validate.amount("amount", amount) if amount.strip() else None
    if row.status in (AddressStatus.VERIFIED, AddressStatus.PENDING_APPROVAL):
        return row  # already proven: a retried call answers the same
    # Refused before a try is counted: a failed address (409 address_verification_failed), an amount before the
    # micro-deposit is confirmed on chain (409 verification_not_sent).
    address_states.next_status(row.status, Event.PROVEN)
    if given is None:
        return await _verify_signature(session, catalogue, row, signature)
    address_states.next_verification(row.verification_status, VerificationEvent.AMOUNT_MATCHED)
    now = now_of(session)
    row.updated_at = now
    if given == row.verification_amount:
        _proven(row, ProofMethod.MICRO_DEPOSIT, now)
        session.add(row)
        return row
    row.tried_times += 1
    if row.tried_times >= MAX_TRIES:
        row.status = address_states.next_status(row.status, Event.TRIES_EXHAUSTED)
        row.verification_status = address_states.next_verification(row.verification_status,
                                                                   VerificationEvent.TRIES_EXHAUSTED)
    session.add(row)
    await session.flush()
    left = MAX_TRIES - row.tried_times
    raise VerificationFailed(f"amount: not the amount sent; {left} tries left" if left else
                             "amount: not the amount sent; the address failed verification", field="amount")


async def _verify_signature(session: AsyncSession, catalogue: Catalogue, row: MerchantAddress,
                            signature: str) -> MerchantAddress:
    network = catalogue.networks.get(row.network)
    scheme = key_scheme(network) if network is not None else None
    if not isinstance(scheme, MessageSigning):
        raise invalid("signature", f"wallets of {row.network} cannot sign a message here; give amount, the "
                                   "micro-deposit received, and have an approver approve the address")
    try:
        signer = scheme.message_signer(message_of(row, scheme.display_address(row.address)), signature)
    except InvalidSignature as e:
        raise invalid("signature", str(e)) from None
    now = now_of(session)
    row.updated_at = now
    if signer == row.address:
        _proven(row, ProofMethod.SIGNATURE, now)
        session.add(row)
        return row
    row.verification_nonce = new_nonce()
    session.add(row)
    await session.flush()
    raise SignatureRefused("signature: not a signature of this address's current message by its key (another key, "
                           "another merchant's or address's message, or a nonce already spent); a new nonce was "
                           "drawn: sign the message the address shows now", field="signature")


def waits_for_approval(row: MerchantAddress) -> bool:
    return not row.deleted_at and row.status in WAITING and row.approval_status == ApprovalStatus.PENDING


def waiting_for_approval(caller: Caller) -> list[Any]:
    """The conditions of the caller's addresses an approver has to decide (`waits_for_approval` in SQL)."""
    return [*in_scope(MerchantAddress, caller), MerchantAddress.deleted_at == 0,
            col(MerchantAddress.status).in_(WAITING), MerchantAddress.approval_status == ApprovalStatus.PENDING]


def decided(session: AsyncSession, row: MerchantAddress, *, approve: bool) -> None:
    """The approvers' decision on `row` (locked, `waits_for_approval`): approved, it is verified once proven;
    rejected, it failed (and no micro-deposit is sent any more)."""
    if approve:
        row.approval_status = approval_states.next_status(row.approval_status, ApprovalEvent.APPROVE)
        row.status = address_states.next_status(row.status, Event.APPROVE)  # verified if proven already
    else:
        row.approval_status = approval_states.next_status(row.approval_status, ApprovalEvent.REJECT)
        row.status = address_states.next_status(row.status, Event.REJECT)
        # A proof already made stays on the record; one under way is failed.
        row.verification_status = address_states.next_verification(row.verification_status, VerificationEvent.REJECT)
        row.verification_nonce = ""
    row.updated_at = now_of(session)
    session.add(row)


async def list_page(session: AsyncSession, caller: Caller, page: Page, network: str) -> tuple[list[MerchantAddress],
                                                                                              int]:
    where = [*in_scope(MerchantAddress, caller), MerchantAddress.deleted_at == 0]
    if network.strip():
        where.append(MerchantAddress.network == network.strip())
    return await newest_first(session, MerchantAddress, where, page)
