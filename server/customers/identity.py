"""Ephemeral tokens, one-time codes, auth tokens, and resolving any of them into a customer identity.

A resolution takes exactly one method: `ephemeral_token`, `auth_token`, or `email`/`phone` with
`verification_code`. The spec sends them inside `request`, a JSON object string; the same fields directly in the
body are accepted too (DESIGN.md §2).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from paygate.v1 import customers_pb2
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import json_fields, validate
from server.context import Caller, client_ip
from server.customers import service as customers
from server.customers.models import AuthToken, Customer, EphemeralToken, VerificationCode, VerificationCodeFailure
from server.db.sets import on_postgres
from server.errors import InvalidArgument, MissingParameter, NotFound, RateLimited, invalid
from server.ids import digest, new_id, random_base62
from server.ratelimit.client_ip import bucket_of
from server.request_string import merged
from server.scoping import find_owned

EPHEMERAL_DEFAULT_SECONDS = 900
EPHEMERAL_MIN_SECONDS = 300
AUTH_TOKEN_SECONDS = 30 * 24 * 3600
# Wrong guesses count per (address, client IP) across the address's codes, over a code's lifetime (DESIGN §16): the
# code a client guessed wrong 5 times is locked for that client, and a new code does not buy it 5 more; a stranger's
# guesses never lock out the owner, who guesses from another IP.
FAILURE_WINDOW_SECONDS = 600
MAX_FAILURES_PER_CLIENT = 5
# Codes sent in an hour: per address here; per client IP and per payment link by `SendCaps` (settings).
CODES_WINDOW_SECONDS = 3600
MAX_CODES_PER_WINDOW = 5
IDP_KEYS = {customers_pb2.IDP_KEY_EMAIL: "email", customers_pb2.IDP_KEY_PHONE: "phone",
            customers_pb2.IDP_KEY_UUID: "uuid"}


class TokenExpired(InvalidArgument):
    reason = "token_expired"


class VerificationFailed(InvalidArgument):
    reason = "verification_code_invalid"
    keep_changes = True  # a wrong code still counts as an attempt


def _subject(idp_key: str, value: str) -> str:
    if idp_key == "email":
        return validate.email("idp_subject", value).lower()
    if idp_key == "phone":
        return validate.phone("idp_subject", value)
    return validate.text("idp_subject", value.strip())


async def create_ephemeral_token(session: AsyncSession, caller: Caller,
                                 request: customers_pb2.CreateEphemeralTokenRequest, *, now: int) -> tuple[str, int]:
    idp_key = IDP_KEYS.get(request.idp_key, "")
    anonymous = not (idp_key and request.idp_subject and request.provider)
    subject = "" if anonymous else _subject(idp_key, request.idp_subject)
    allow_create = request.allow_create if request.HasField("allow_create") else True
    lifetime = request.expires_in if request.HasField("expires_in") else EPHEMERAL_DEFAULT_SECONDS
    if not EPHEMERAL_MIN_SECONDS <= lifetime <= EPHEMERAL_DEFAULT_SECONDS:
        raise invalid("expires_in", f"must be from {EPHEMERAL_MIN_SECONDS} to {EPHEMERAL_DEFAULT_SECONDS} seconds")
    must_exist = not anonymous and not allow_create
    if must_exist and await customers.find_by_identity(session, caller, idp_key, subject) is None:
        raise NotFound("customer", subject)
    token = f"eph_{random_base62(32)}"
    session.add(EphemeralToken(
        token_hash=digest(token), merchant_id=caller.merchant_id, livemode=caller.livemode,
        idp_key="" if anonymous else idp_key, idp_subject=subject,
        provider=validate.text("provider", request.provider), order_id=validate.text("order_id", request.order_id),
        return_url=validate.url("return_url", request.return_url),
        issued_by=validate.text("issued_by", request.issued_by), allow_create=allow_create,
        channel_metadata=json_fields.metadata_of(request.channel_metadata, "channel_metadata"),
        created=now, expires_at=now + lifetime,
    ))
    return token, now + lifetime


_STRING_FIELDS = ("ephemeral_token", "auth_token", "email", "phone", "verification_code", "payment_link_id")


def merged_request(request: customers_pb2.ResolveIdentityRequest) -> dict[str, Any]:
    """The given fields, from the body and the `request` JSON object string (see server/request_string.py)."""
    whole = merged(request)
    fields: dict[str, Any] = {name: getattr(whole, name) for name in _STRING_FIELDS if getattr(whole, name)}
    if whole.HasField("allow_create"):
        fields["allow_create"] = whole.allow_create
    if whole.refresh_token:
        fields["refresh_token"] = True
    return fields


async def resolve(session: AsyncSession, caller: Caller, request: customers_pb2.ResolveIdentityRequest, *,
                  now: int) -> customers_pb2.ResolveIdentityResponse:
    """`now`: the runtime's clock (tokens and codes expire by it)."""
    fields = merged_request(request)
    methods = [m for m in ("ephemeral_token", "auth_token") if fields.get(m)]
    if fields.get("email") or fields.get("phone") or fields.get("verification_code"):
        methods.append("verification_code")
    if not methods:
        raise MissingParameter("request", "request: give one of ephemeral_token, auth_token, "
                                          "or email/phone with verification_code")
    if len(methods) > 1:
        raise invalid("request", f"give exactly one authentication method, not {' and '.join(methods)}")
    if fields.get("payment_link_id"):
        await _check_payment_link(session, caller, fields["payment_link_id"])
    allow_create = bool(fields.get("allow_create", True))
    out = customers_pb2.ResolveIdentityResponse()
    customer: Customer | None
    if methods[0] == "ephemeral_token":
        customer = await _from_ephemeral_token(session, caller, fields["ephemeral_token"], allow_create, out,
                                                now)
    elif methods[0] == "auth_token":
        customer = await _from_auth_token(session, caller, fields["auth_token"], now)
    else:
        customer = await _from_code(session, caller, fields, allow_create, now)
    if customer is not None:
        _describe(customer, out)
    if fields.get("refresh_token"):
        if customer is None:
            raise invalid("refresh_token", "an anonymous token has no customer to issue an auth token for")
        out.auth_token = await issue_auth_token(session, caller, customer.id, now=now)
    return out


def _describe(customer: Customer, out: customers_pb2.ResolveIdentityResponse) -> None:
    out.customer_id = customer.id
    out.email, out.phone, out.uuid = customer.email, customer.phone, customer.uuid
    out.provider_a_customer_id = customer.provider_a_customer_id
    out.provider_b_customer_id = customer.provider_b_customer_id
    out.is_saved_customer = bool(customer.provider_a_customer_id)
    for address in customer.addresses:
        out.addresses.add(**{k: str(v) for k, v in address.items()})


async def _check_payment_link(session: AsyncSession, caller: Caller, link_id: str) -> None:
    from server.payment_links.models import PaymentLink  # local: links depend on customers' module tree

    # An id named in the body: 400 for that field, the same for unknown and foreign ids (DESIGN §11).
    if await find_owned(session, PaymentLink, link_id, caller) is None:
        raise invalid("payment_link_id", "no such payment link")


async def _customer_for(session: AsyncSession, caller: Caller, idp_key: str, subject: str,
                        allow_create: bool) -> Customer:
    customer = await customers.find_by_identity(session, caller, idp_key, subject)
    if customer is None:
        if not allow_create:
            raise NotFound("customer", subject)
        customer = await customers.create_for_identity(session, caller, idp_key, subject)
    return customer


async def _from_ephemeral_token(session: AsyncSession, caller: Caller, token: str, allow_create: bool,
                                out: customers_pb2.ResolveIdentityResponse, now: int) -> Customer | None:
    # A token names the merchant's object like an id: another merchant's is unknown; the merchant's own live token
    # with its test key is forbidden (DESIGN §2), as every object is (server/scoping.py).
    row = await find_owned(session, EphemeralToken, digest(token), caller, forbidden="ephemeral_token")
    if row is None:
        raise invalid("ephemeral_token", "unknown token")
    expired = row.expires_at <= now  # read first: the UPDATE below also refreshes `row` in the session
    # Single use: the token is spent by expiring it now, in one conditional UPDATE so that two resolutions sent
    # at once cannot both win. A failed resolution rolls this back and leaves the token usable.
    spent = await session.exec(sa.update(EphemeralToken).where(
        col(EphemeralToken.token_hash) == row.token_hash, col(EphemeralToken.expires_at) > now,
    ).values(expires_at=now))
    if expired or not spent.rowcount:
        raise TokenExpired("ephemeral_token: the token has expired or was already used; issue a new one",
                           field="ephemeral_token")
    out.issued_by, out.provider = row.issued_by, row.provider
    out.order_id, out.return_url = row.order_id, row.return_url
    if not row.idp_key:
        return None
    return await _customer_for(session, caller, row.idp_key, row.idp_subject, allow_create and row.allow_create)


async def _from_auth_token(session: AsyncSession, caller: Caller, token: str, now: int) -> Customer:
    row = await find_owned(session, AuthToken, digest(token), caller, forbidden="auth_token")
    if row is None:
        raise invalid("auth_token", "unknown token")
    if row.expires_at <= now:
        raise TokenExpired("auth_token: the token has expired; sign in again", field="auth_token")
    return await customers.get(session, caller, row.customer_id)


async def _from_code(session: AsyncSession, caller: Caller, fields: dict[str, Any], allow_create: bool,
                     now: int) -> Customer:
    channel = "email" if fields.get("email") else "phone"
    if not fields.get(channel):
        raise MissingParameter("email", "email: or phone is required with verification_code")
    if not fields.get("verification_code"):
        raise MissingParameter("verification_code")
    subject = code_subject(channel, fields[channel], field=channel)
    code = (await session.exec(
        select(VerificationCode).where(
            VerificationCode.merchant_id == caller.merchant_id, VerificationCode.livemode == caller.livemode,
            VerificationCode.channel == channel, VerificationCode.subject == subject,
            col(VerificationCode.consumed).is_(False), VerificationCode.expires_at > now,
        ).order_by(col(VerificationCode.created).desc()).limit(1)
        # Locked until commit: guesses sent at once must each count, and a code must not be used twice at once.
        .with_for_update()
    )).first()
    if code is None:
        raise VerificationFailed("verification_code: no valid code; request a new one", field="verification_code")
    # The guesser is the call's client: a stranger's failures are theirs, never the address owner's.
    guesser = client_key()
    await _check_failures(session, caller, code, guesser, now)
    if not hmac.compare_digest(code.code_hash, digest(f"{code.id}:{fields['verification_code']}")):
        code.attempts += 1
        session.add(code)
        session.add(VerificationCodeFailure(id=new_id("vcf"), code_id=code.id, client_ip=guesser, created=now,
                                            expires_at=now + FAILURE_WINDOW_SECONDS))
        raise VerificationFailed("verification_code: the code is wrong", field="verification_code")
    code.consumed = True
    session.add(code)
    return await _customer_for(session, caller, channel, subject, allow_create)


def client_key() -> str:
    """The current call's client as the per-IP limits key it (IPv6 by its /64); "" outside a call."""
    address = client_ip.get()
    return bucket_of(address)[:64] if address else ""


async def _check_failures(session: AsyncSession, caller: Caller, code: VerificationCode, guesser: str,
                          now: int) -> None:
    """Refuses a guess from a client that guessed wrong MAX_FAILURES_PER_CLIENT times at the address in the window:
    400 when those were at this code (it is locked for that client: a new one is needed), else 429 until the
    oldest of them leaves the window. Read after the code's row lock, so that guesses sent at once all count."""
    since = now - FAILURE_WINDOW_SECONDS
    rows = (await session.exec(
        select(VerificationCodeFailure.code_id, sa.func.count(), sa.func.min(VerificationCodeFailure.created))
        .join(VerificationCode, col(VerificationCode.id) == col(VerificationCodeFailure.code_id))
        .where(VerificationCode.merchant_id == caller.merchant_id, VerificationCode.livemode == caller.livemode,
               VerificationCode.channel == code.channel, VerificationCode.subject == code.subject,
               VerificationCodeFailure.client_ip == guesser, VerificationCodeFailure.created > since)
        .group_by(col(VerificationCodeFailure.code_id))
    )).all()
    total = sum(int(count) for _, count, _ in rows)
    if total < MAX_FAILURES_PER_CLIENT:
        return
    if any(code_id == code.id and int(count) >= MAX_FAILURES_PER_CLIENT for code_id, count, _ in rows):
        raise VerificationFailed("verification_code: too many wrong codes; request a new one",
                                 field="verification_code")
    wait = max(1, min(int(oldest) for _, _, oldest in rows) + FAILURE_WINDOW_SECONDS - now)
    raise RateLimited(wait, f"verification_code: too many wrong codes for this {code.channel} from here; retry "
                      f"in {wait} s", field="verification_code")


def code_subject(channel: str, value: str, *, field: str) -> str:
    # One spelling for issuing and checking, so that a code sent to "Ann@Example.com" is found for "ann@example.com".
    return validate.email(field, value).lower() if channel == "email" else validate.phone(field, value)


@dataclass(frozen=True)
class SendCaps:
    """Codes sent in an hour per client IP (across merchants) and per payment link (settings
    `code_sends_per_ip_per_hour`, `code_sends_per_link_per_hour`)."""

    per_ip: int
    per_link: int


async def issue_verification_code(session: AsyncSession, caller: Caller, channel: str, subject: str,
                                  lifetime: int = 600, *, now: int, caps: SendCaps, field: str = "subject",
                                  payment_link_id: str = "") -> tuple[str, str]:
    """A six-digit one-time code for `subject`, asked for by the current call's client on `payment_link_id`, and its
    row's id; the caller delivers it (email or SMS). 429 once the address, the client IP or the link had its codes
    of the hour."""
    subject = code_subject(channel, subject, field=field)
    asker = client_key()
    await _one_sender_at_a_time(session, [f"subject:{caller.merchant_id}:{caller.livemode}:{channel}:{subject}",
                                          f"ip:{asker}", f"link:{payment_link_id}"])
    since = now - CODES_WINDOW_SECONDS
    by_address = (VerificationCode.merchant_id == caller.merchant_id, VerificationCode.livemode == caller.livemode,
                  VerificationCode.channel == channel, VerificationCode.subject == subject)
    await _within_hour(session, by_address, since, now, MAX_CODES_PER_WINDOW, field,
                       f"{field}: at most {MAX_CODES_PER_WINDOW} codes per hour for one {channel}")
    if asker:
        await _within_hour(session, (VerificationCode.client_ip == asker,), since, now, caps.per_ip, field,
                           f"{field}: at most {caps.per_ip} codes per hour from one client")
    if payment_link_id:
        await _within_hour(session, (VerificationCode.payment_link_id == payment_link_id,), since, now,
                           caps.per_link, "payment_link_id",
                           f"payment_link_id: at most {caps.per_link} codes per hour for one payment link")
    code = f"{secrets.randbelow(10**6):06d}"
    row_id = new_id("vc")
    session.add(VerificationCode(id=row_id, merchant_id=caller.merchant_id, livemode=caller.livemode,
                                 channel=channel, subject=subject, code_hash=digest(f"{row_id}:{code}"),
                                 created=now, expires_at=now + lifetime, client_ip=asker,
                                 payment_link_id=payment_link_id))
    return row_id, code


async def _within_hour(session: AsyncSession, scope: tuple[Any, ...], since: int, now: int, cap: int, field: str,
                       refusal: str) -> None:
    count, oldest = (await session.exec(
        select(sa.func.count(), sa.func.min(VerificationCode.created)).where(*scope, VerificationCode.created > since)
    )).one()
    if int(count) >= cap:
        wait = max(1, int(oldest) + CODES_WINDOW_SECONDS - now)
        raise RateLimited(wait, f"{refusal}; retry in {wait} s", field=field)


async def _one_sender_at_a_time(session: AsyncSession, keys: list[str]) -> None:
    """PostgreSQL: the counts of codes sent and the new code's insert happen under transaction-scoped advisory
    locks on the address, the IP and the link, so that codes asked for at once cannot all pass one count (SQLite's
    writers run one at a time already). Taken in one order, so that two senders never wait on each other."""
    if not on_postgres(session):
        return
    for key in sorted({int.from_bytes(hashlib.sha256(f"verification_code:{k}".encode()).digest()[:8], "big",
                                      signed=True) for k in keys}):
        await session.exec(select(sa.func.pg_advisory_xact_lock(key)))


async def issue_auth_token(session: AsyncSession, caller: Caller, customer_id: str, *, now: int) -> str:
    token = f"cat_{random_base62(32)}"
    session.add(AuthToken(token_hash=digest(token), merchant_id=caller.merchant_id, livemode=caller.livemode,
                          customer_id=customer_id, created=now, expires_at=now + AUTH_TOKEN_SECONDS))
    return token



async def purge_expired(session: AsyncSession, now: int) -> int:
    """Delete lapsed ephemeral tokens, auth tokens and one-time codes (a day after expiry, for support)."""
    cutoff = now - 24 * 3600
    removed = 0
    for table in (EphemeralToken, AuthToken, VerificationCodeFailure, VerificationCode):
        result = await session.exec(sa.delete(table).where(col(table.expires_at) < cutoff))
        removed += int(result.rowcount or 0)
    return removed
