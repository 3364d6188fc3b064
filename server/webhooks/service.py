"""Webhook endpoints: create, list, retrieve, update, delete, rotate the signing secret. Scoped to the caller's
merchant and mode like every resource."""

from __future__ import annotations

import re

import sqlalchemy as sa
from paygate.v1 import webhook_endpoints_pb2 as pb
from sqlmodel import col, delete, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import validate
from server.clock import now_of
from server.context import Caller
from server.errors import invalid
from server.events.outbox import API_VERSION
from server.ids import new_id, random_base62
from server.merchants.models import Merchant
from server.paging import Page, newest_first
from server.scoping import find_owned, get_owned, in_scope
from server.sealing import SecretBox
from server.webhooks import urls
from server.webhooks.models import Delivery, DeliveryStatus, WebhookEndpoint
from server.webhooks.queue import ALL_EVENTS, MAX_ENDPOINTS_PER_MODE

MAX_ENABLED_EVENTS = 100
DEFAULT_OVERLAP_SECONDS = 24 * 3600
MAX_OVERLAP_SECONDS = 7 * 24 * 3600
_EVENT_TYPE = re.compile(r"^[a-z][a-z_]*(\.[a-z][a-z_]*)+$")


def new_secret() -> str:
    return "whsec_" + random_base62(32)


def _enabled_events(values: list[str]) -> list[str]:
    if not values:
        raise invalid("enabled_events", "at least one event type, or '*' for all")
    if len(values) > MAX_ENABLED_EVENTS:
        raise invalid("enabled_events", f"at most {MAX_ENABLED_EVENTS} event types")
    out: list[str] = []
    for i, value in enumerate(values):
        value = value.strip()
        if value != ALL_EVENTS and not _EVENT_TYPE.match(value):
            raise invalid(f"enabled_events[{i}]", f"{value!r} is not an event type such as 'refund.succeeded'")
        if value not in out:
            out.append(value)
    return [ALL_EVENTS] if ALL_EVENTS in out else out


def _alive(row: WebhookEndpoint) -> bool:
    return not row.deleted_at


async def get(session: AsyncSession, caller: Caller, endpoint_id: str) -> WebhookEndpoint:
    return await get_owned(session, WebhookEndpoint, endpoint_id, caller, "webhook_endpoint", alive=_alive)


async def find(session: AsyncSession, caller: Caller, endpoint_id: str) -> WebhookEndpoint | None:
    return await find_owned(session, WebhookEndpoint, endpoint_id, caller, alive=_alive)


async def create(session: AsyncSession, caller: Caller, request: pb.CreateWebhookEndpointRequest,
                 url: str, box: SecretBox) -> tuple[WebhookEndpoint, str]:
    """The endpoint and its signing secret in clear (shown once; stored sealed). `url` has been checked by
    `urls.check` before the transaction (it may resolve a host name)."""
    # The merchant's row, locked: two concurrent creates on PostgreSQL cannot both see room for one more.
    await session.exec(select(Merchant.id).where(col(Merchant.id) == caller.merchant_id).with_for_update())
    where = [*in_scope(WebhookEndpoint, caller), col(WebhookEndpoint.deleted_at).is_(None)]
    count = (await session.exec(select(sa.func.count()).select_from(WebhookEndpoint).where(*where))).one()
    if count >= MAX_ENDPOINTS_PER_MODE:
        raise invalid("url", f"a merchant has at most {MAX_ENDPOINTS_PER_MODE} webhook endpoints per mode; "
                             "delete one first")
    now = now_of(session)
    secret = new_secret()
    row = WebhookEndpoint(
        id=new_id("we"), merchant_id=caller.merchant_id, livemode=caller.livemode, url=url,
        enabled_events=_enabled_events(list(request.enabled_events)),
        description=validate.text("description", request.description, max_length=1000),
        secret=box.seal(secret, livemode=caller.livemode), api_version=API_VERSION, created=now, updated=now,
    )
    session.add(row)
    return row, secret


async def update(session: AsyncSession, caller: Caller, request: pb.UpdateWebhookEndpointRequest,
                 url: str | None) -> WebhookEndpoint:
    row = await get(session, caller, request.id)
    if url is not None:
        row.url = url
    if request.enabled_events:
        row.enabled_events = _enabled_events(list(request.enabled_events))
    if request.HasField("disabled"):
        row.disabled = request.disabled
    if request.HasField("description"):
        row.description = validate.text("description", request.description, max_length=1000)
    row.updated = now_of(session)
    session.add(row)
    return row


async def delete_endpoint(session: AsyncSession, caller: Caller, endpoint_id: str) -> None:
    row = await get(session, caller, endpoint_id)
    row.deleted_at = row.updated = now_of(session)
    session.add(row)
    # Attempts not yet made are dropped; those made stay in the events' delivery logs.
    await session.exec(delete(Delivery).where(col(Delivery.endpoint_id) == row.id,
                                              col(Delivery.status) == DeliveryStatus.PENDING))


async def rotate(session: AsyncSession, caller: Caller, request: pb.RotateWebhookEndpointSecretRequest,
                 box: SecretBox) -> tuple[WebhookEndpoint, str]:
    """The endpoint and its new signing secret in clear (shown once; stored sealed)."""
    overlap = request.expires_in if request.HasField("expires_in") else DEFAULT_OVERLAP_SECONDS
    if not 0 <= overlap <= MAX_OVERLAP_SECONDS:
        raise invalid("expires_in", f"must be from 0 to {MAX_OVERLAP_SECONDS} seconds")
    row = await get(session, caller, request.id)
    now = now_of(session)
    if overlap:
        row.previous_secret, row.previous_secret_expires_at = row.secret, now + overlap
    else:
        row.previous_secret, row.previous_secret_expires_at = "", None
    secret = new_secret()
    row.secret = box.seal(secret, livemode=row.livemode)
    row.updated = now
    session.add(row)
    return row, secret


def signing_secrets(row: WebhookEndpoint, now: int, box: SecretBox) -> list[str]:
    """The secrets that sign a delivery sent at `now`: the current one, and the previous one during its overlap."""
    return secrets_for(row.secret, row.previous_secret, row.previous_secret_expires_at, now, box)


def secrets_for(secret: str, previous_secret: str, previous_expires_at: int | None, now: int,
                box: SecretBox) -> list[str]:
    """`signing_secrets` from an endpoint's sealed columns."""
    out = [box.open(secret)]
    if previous_secret and previous_expires_at and now < previous_expires_at:
        out.append(box.open(previous_secret))
    return out


async def list_page(session: AsyncSession, caller: Caller, page: Page) -> tuple[list[WebhookEndpoint], int]:
    return await newest_first(session, WebhookEndpoint,
                              [*in_scope(WebhookEndpoint, caller), col(WebhookEndpoint.deleted_at).is_(None)], page)


async def checked_url(request_url: str, caller: Caller, *, allow_private: bool) -> str:
    return await urls.check("url", request_url, livemode=caller.livemode, allow_private=allow_private)
