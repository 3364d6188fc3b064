"""Creating merchants, and their API keys: issuing, revoking, rolling, and the one rule of which keys may be used."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.errors import invalid
from server.ids import digest, new_id, random_base62
from server.merchants.models import ApiKey, Merchant

MODES = {False: "test", True: "live"}
SECRET_KEY_CHARS = 32
PUBLIC_KEY_CHARS = 24
# The only shapes a key can have (DESIGN.md §14). Anything else is never looked up: in particular the stored
# digest of a secret key, which a backup or a log could reveal, must not work as the key.
_SECRET_KEY = re.compile(rf"sk_(test|live)_[A-Za-z0-9]{{{SECRET_KEY_CHARS}}}")
_PUBLIC_KEY = re.compile(rf"pk_(test|live)_[A-Za-z0-9]{{{PUBLIC_KEY_CHARS}}}")
# How long a rolled key keeps working beside its successor (`paygate merchants keys roll --grace-seconds`): time
# to deploy the new key everywhere the old one is used; 0 stops it at once.
ROLL_GRACE_SECONDS = 86_400
MAX_ROLL_GRACE_SECONDS = 7 * 86_400


@dataclass(frozen=True)
class IssuedKeys:
    secret_key: str
    public_key: str


async def create_merchant(session: AsyncSession, name: str) -> tuple[Merchant, dict[str, IssuedKeys]]:
    """A merchant with a test and a live key pair. The secret keys are returned here and never again."""
    name = name.strip()
    if not name:
        raise ValueError("a merchant needs a name")
    now = now_of(session)
    merchant = Merchant(id=new_id("mch"), name=name, created=now)
    session.add(merchant)
    await session.flush()  # no ORM relationships: the parent row goes first
    issued = {}
    for livemode, mode in MODES.items():
        _, secret = _issue(session, merchant.id, livemode, "secret", "", now)
        _, public = _issue(session, merchant.id, livemode, "public", "", now)
        issued[mode] = IssuedKeys(secret_key=secret, public_key=public)
    return merchant, issued


def _issue(session: AsyncSession, merchant_id: str, livemode: bool, kind: str, role: str, now: int
           ) -> tuple[ApiKey, str]:
    """A new key row and the key itself: a secret key is stored only as its digest, a public key as itself."""
    if kind == "secret":
        value = f"sk_{MODES[livemode]}_{random_base62(SECRET_KEY_CHARS)}"
        lookup = digest(value)
    else:
        value = f"pk_{MODES[livemode]}_{random_base62(PUBLIC_KEY_CHARS)}"
        lookup = value
    row = ApiKey(id=new_id("key"), merchant_id=merchant_id, livemode=livemode, kind=kind, lookup=lookup,
                 hint=value[:12], role=role, created=now)
    session.add(row)
    return row, value


def usable(revoked_at: int | None, expires_at: int | None, now: int) -> bool:
    """The one rule of which keys work: not revoked, and not past the end a roll gave it. Every check of a key
    (server/rpc/auth.py, the merchant's own listing) asks this."""
    return revoked_at is None and (expires_at is None or now < expires_at)


def status(key: ApiKey, now: int) -> str:
    """How `paygate merchants keys list` shows a key: active, expiring (rolled, within its grace), expired,
    revoked."""
    if key.revoked_at is not None:
        return "revoked"
    if not usable(key.revoked_at, key.expires_at, now):
        return "expired"
    return "active" if key.expires_at is None else "expiring"


def key_lookup(presented: str) -> tuple[str, str] | None:
    """(the `api_keys.lookup` value, the kind) of a value shaped like a key; None for anything else."""
    if _SECRET_KEY.fullmatch(presented):
        return digest(presented), "secret"
    if _PUBLIC_KEY.fullmatch(presented):
        return presented, "public"
    return None


async def get_merchant(session: AsyncSession, merchant_id: str) -> Merchant | None:
    return await session.get(Merchant, merchant_id)


async def keys_of(session: AsyncSession, merchant_id: str) -> list[ApiKey]:
    """The merchant's keys that work now, oldest first, a rolled key before its successor even when both were made
    in the same second: the last of a kind and mode is the one to show."""
    now = now_of(session)
    return sorted((k for k in await all_keys(session, merchant_id) if usable(k.revoked_at, k.expires_at, now)),
                  key=lambda k: (k.expires_at is None, k.created))


async def all_keys(session: AsyncSession, merchant_id: str) -> list[ApiKey]:
    """Every key the merchant ever had, revoked and expired ones too, oldest first."""
    rows = await session.exec(select(ApiKey).where(ApiKey.merchant_id == merchant_id)
                              .order_by(col(ApiKey.created), col(ApiKey.id)))
    return list(rows)


async def create_role_key(session: AsyncSession, merchant_id: str, livemode: bool, role: str) -> tuple[ApiKey, str]:
    """A new secret key with a role (`approver`, DESIGN §15); the secret is returned here and never again."""
    return _issue(session, merchant_id, livemode, "secret", role, now_of(session))


async def _key_to_change(session: AsyncSession, merchant_id: str, key_id: str) -> ApiKey:
    """The merchant's key `key_id`, locked, if it still works; `parameter_invalid` on `key` otherwise (another
    merchant's key reads as no key at all)."""
    key = await session.get(ApiKey, key_id.strip(), with_for_update=True)
    if key is None or key.merchant_id != merchant_id:
        raise invalid("key", f"no key {key_id!r} of merchant {merchant_id}")
    if key.revoked_at is not None:
        raise invalid("key", f"key {key.id} is revoked already")
    if not usable(key.revoked_at, key.expires_at, now_of(session)):
        raise invalid("key", f"key {key.id} has expired")
    return key


async def revoke_key(session: AsyncSession, merchant_id: str, key_id: str) -> ApiKey:
    """The key stops working at once, in every process (keys are looked up on every call, never cached)."""
    key = await _key_to_change(session, merchant_id, key_id)
    key.revoked_at = now_of(session)
    session.add(key)
    return key


async def roll_key(session: AsyncSession, merchant_id: str, key_id: str, grace_seconds: int = ROLL_GRACE_SECONDS
                   ) -> tuple[ApiKey, str, ApiKey]:
    """(the new key's row, the new key itself, the old key's row): a new key of the same mode, kind and role,
    returned here and never again; the old one keeps working for `grace_seconds` (0: it stops at once)."""
    if not 0 <= grace_seconds <= MAX_ROLL_GRACE_SECONDS:
        raise invalid("grace_seconds", f"must be 0 to {MAX_ROLL_GRACE_SECONDS} (7 days)")
    old = await _key_to_change(session, merchant_id, key_id)
    if old.expires_at is not None:
        raise invalid("key", f"key {old.id} was rolled already (it expires at {old.expires_at}); roll its "
                             "successor, or revoke it to stop it now")
    now = now_of(session)
    new, value = _issue(session, merchant_id, old.livemode, old.kind, old.role, now)
    old.expires_at = now + grace_seconds
    session.add(old)
    return new, value, old
