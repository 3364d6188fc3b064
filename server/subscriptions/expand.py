"""The intent's `expand`: `invoice` fills invoice_details and `subscription` subscription_details (DESIGN §8)."""

from __future__ import annotations

from collections.abc import Sequence

from paygate.v1 import payment_intents_pb2 as pb
from sqlmodel.ext.asyncio.session import AsyncSession

from server.payment_intents.aggregate import Loaded
from server.subscriptions import billing, convert
from server.subscriptions.aggregate import load
from server.subscriptions.models import Subscription


async def fill(session: AsyncSession, loaded: Loaded, out: pb.PaymentIntent, expand: Sequence[str]) -> None:
    inv = loaded.invoice
    if inv is None or not expand:
        return
    if "invoice" in expand:
        out.invoice_details.CopyFrom(await billing.invoice_view(session, inv))
    if "subscription" in expand:
        sub = await session.get(Subscription, inv.subscription_id)
        if sub is not None:
            out.subscription_details.CopyFrom(convert.to_proto(await load(session, sub)))
