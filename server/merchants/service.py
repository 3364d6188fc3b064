"""Creating merchants and finding the merchant behind a key."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.ids import digest, new_id, random_base62
from server.merchants.models import ApiKey, Merchant

MODES = {False: "test", True: "live"}
SECRET_KEY_CHARS = 32
PUBLIC_KEY_CHARS = 24
# The only shapes a key can have (DESIGN.md §14). Anything else is never looked up: in particular the stored
# digest of a secret key, which a backup or a log could reveal, must not work as the key.
_SECRET_KEY = re.compile(rf"sk_(test|live)_[A-Za-z0-9]{{{SECRET_KEY_CHARS}}}")
_PUBLIC_KEY = re.compile(rf"pk_(test|live)_[A-Za-z0-9]{{{PUBLIC_KEY_CHARS}}}")


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
        secret = f"sk_{mode}_{random_base62(SECRET_KEY_CHARS)}"
        public = f"pk_{mode}_{random_base62(PUBLIC_KEY_CHARS)}"
        session.add(ApiKey(id=new_id("key"), merchant_id=merchant.id, livemode=livemode, kind="secret",
                           lookup=digest(secret), hint=secret[:12], created=now))
        session.add(ApiKey(id=new_id("key"), merchant_id=merchant.id, livemode=livemode, kind="public",
                           lookup=public, hint=public[:12], created=now))
        issued[mode] = IssuedKeys(secret_key=secret, public_key=public)
    return merchant, issued


def key_lookup(presented: str) -> tuple[str, str] | None:
    """(the `api_keys.lookup` value, the kind) of a value shaped like a key; None for anything else."""
    if _SECRET_KEY.fullmatch(presented):
        return digest(presented), "secret"
    if _PUBLIC_KEY.fullmatch(presented):
        return presented, "public"
    return None


async def find_key(session: AsyncSession, presented: str) -> ApiKey | None:
    """The live (unrevoked) key matching what a caller presented, secret (by digest) or public; None for any
    value not shaped like a key, without a look-up."""
    shaped = key_lookup(presented)
    if shaped is None:
        return None
    lookup, kind = shaped
    key = (await session.exec(select(ApiKey).where(ApiKey.lookup == lookup))).first()
    if key is None or key.revoked_at is not None or key.kind != kind:
        return None
    return key


async def get_merchant(session: AsyncSession, merchant_id: str) -> Merchant | None:
    return await session.get(Merchant, merchant_id)


async def keys_of(session: AsyncSession, merchant_id: str) -> list[ApiKey]:
    rows = await session.exec(select(ApiKey).where(ApiKey.merchant_id == merchant_id, ApiKey.revoked_at == None))  # noqa: E711
    return list(rows)


async def create_role_key(session: AsyncSession, merchant_id: str, livemode: bool, role: str) -> tuple[ApiKey, str]:
    """A new secret key with a role (`approver`, DESIGN §15); the secret is returned here and never again."""
    secret = f"sk_{MODES[livemode]}_{random_base62(SECRET_KEY_CHARS)}"
    row = ApiKey(id=new_id("key"), merchant_id=merchant_id, livemode=livemode, kind="secret", lookup=digest(secret),
                 hint=secret[:12], role=role, created=now_of(session))
    session.add(row)
    return row, secret
