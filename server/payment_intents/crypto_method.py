"""Paying in crypto (`payment_method_type: "crypto"`): the payment method handler (methods.py `PaymentMethod`).

An attempt is a quote in one asset and a fresh deposit address (attempts.py `open_crypto`); chain transfers to that
address pay it, as the chain listener and settle count them; refunds go back on chain from the merchant's treasury.
It is offered everywhere, holds no stock beyond what the intent's status holds, and a subscription it started renews
by e-mailed invoice.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import sqlalchemy as sa
from paygate.v1 import payment_intents_pb2 as pb
from sqlmodel.ext.asyncio.session import AsyncSession

from server.catalogue.catalogue import Asset
from server.payment_intents import attempts, settle, totals
from server.payment_intents.aggregate import Loaded
from server.payment_intents.env import Env
from server.payment_intents.methods import RefundRoute
from server.payment_intents.models import CRYPTO, Charge, PaymentIntent
from server.payment_intents.states import Event
from server.rails.base import PaymentRequests

if TYPE_CHECKING:
    from server.cards.accounts import Cards
    from server.cards.models import SavedPaymentMethod

log = logging.getLogger("paygate.payment_intents")
AML_REJECTED = ("aml_rejected", "every transaction of this payment attempt was rejected by AML screening")


def crypto_options(env: Env, charge: Charge) -> pb.CryptoPaymentOptions:
    """A crypto attempt as the payer pays it: asset, amount, address, the quote's rate and expiry, and the URI a
    wallet opens to pay it."""
    asset = env.catalogue.by_id.get(charge.asset_id)
    return pb.CryptoPaymentOptions(
        asset_id=charge.asset_id, amount=totals.text(charge.amount), token=asset.token if asset else "",
        network=charge.network, decimals=asset.decimals if asset else 0,
        exchange_rate=totals.text(charge.exchange_rate), deposit_address=charge.deposit_address,
        expired_at=charge.quote_expires_at, payment_uri=payment_uri(env, charge, asset))


def payment_uri(env: Env, charge: Charge, asset: Asset | None) -> str:
    """The network's rail makes it (EIP-681, BIP-21, …); "" where the rail makes none or the network has no rail
    in this process (no rpc_url), or the asset left the catalogue."""
    rail = env.rails.get(charge.network)
    if asset is None or not isinstance(rail, PaymentRequests):
        return ""
    try:
        return rail.payment_uri(charge.deposit_address, charge.amount, asset)
    except ValueError as e:
        # A convenience of the answer, never a reason to fail it: the payer still has the address and the amount.
        log.warning("no payment uri", extra={"charge_id": charge.id, "network": charge.network, "error": str(e)})
        return ""


class CryptoMethod:
    name = CRYPTO
    options_field = "crypto"
    order_label = "Crypto"
    counts_transfers = True
    refund_route = RefundRoute.CHAIN

    async def open_attempt(self, session: AsyncSession, env: Env, loaded: Loaded,
                           options: pb.PaymentMethodOptionsInput, cards: Cards | None) -> Loaded:
        if loaded.intent.amount == 0 and loaded.invoice is not None:
            # A free trial: nothing to pay, so choosing how to pay later completes it (DESIGN §8).
            await settle.move(session, env, loaded, Event.NOTHING_DUE, payment_method_type=self.name)
            return loaded
        return await attempts.open_crypto(session, env, loaded, options.crypto.asset_id.strip())

    async def withdraw_open(self, session: AsyncSession, env: Env, loaded: Loaded, cards: Cards | None) -> None:
        """Nothing to withdraw: an open quote takes no money unless the payer sends it, and funds that arrive once
        the intent is paid another way stay on it (unexpected, refundable)."""

    def answer_charge(self, env: Env, charge: Charge, status: str, out: pb.Charge) -> None:
        out.payment_method_options.crypto.CopyFrom(crypto_options(env, charge))
        if status == totals.ChargeStatus.FAILED:
            out.failure_code, out.failure_message = AML_REJECTED

    def answer_intent(self, env: Env, latest: Charge, out: pb.PaymentIntent) -> None:
        out.payment_method_options.crypto.CopyFrom(crypto_options(env, latest))

    def holding(self) -> sa.ColumnElement[bool] | None:
        return None

    async def offered(self, session: AsyncSession, merchant_id: str, livemode: bool) -> bool:
        return True

    async def renews_with(self, session: AsyncSession, intent: PaymentIntent) -> SavedPaymentMethod | None:
        return None


CRYPTO_METHOD = CryptoMethod()
