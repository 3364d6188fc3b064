"""What a charge's transfers add up to, and the charge status that follows. Pure functions over rows."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from server.aml import AmlStatus
from server.chains.models import UNCONFIRMED, ChainTransfer, TransferStatus, by_contract_call
from server.payment_intents.models import Charge
from server.payment_intents.states import ChargeStatus, Status


def units(t: ChainTransfer) -> Decimal:
    """The transfer's amount in the asset's units (exact)."""
    return Decimal(t.amount_base).scaleb(-t.decimals)


def arrival_time(t: ChainTransfer) -> int:
    """When the transfer arrived, as far as a quote is concerned: its block's timestamp when that is earlier than the
    watcher's first sight of it (`created_at`), else that first sight.

    The block's time, so that a payment mined while its quote held still counts when paygate saw it late (a watcher
    that was down or restarted, a node behind). But only when earlier: a block's timestamp is chosen by whoever made
    the block, within the chain's limits (on proof-of-stake Ethereum the slot's time; elsewhere after its parent's
    and not far ahead of the network's clock), so a block time later than our first sight is never believed, and a
    payment we saw late never counts because of its block's time. Backdating is bounded by the parent's time, which
    the network already accepted: about one block interval, unless the producer withheld whole blocks (a
    re-organisation, which the confirmations are for). A transfer recorded without a block time (before migration
    0025, or by a rail that does not tell it) arrived when first seen."""
    if t.block_timestamp is not None and t.block_timestamp < t.created_at:
        return t.block_timestamp
    return t.created_at


def within_quote(charge: Charge, t: ChainTransfer, priced_in: str = "") -> bool:
    """Whether the transfer arrived (`arrival_time`) while the charge's quote held, its grace included (its rate is
    the price the payer was given until then, and no longer). A charge in the intent's own currency (`priced_in`) has
    no rate to go stale: 1 USDT pays 1 USDT whenever it arrives."""
    return charge.asset_id == priced_in or arrival_time(t) <= charge.quote_expires_at + charge.quote_grace_seconds


def counts_toward(charge: Charge, t: ChainTransfer, paid_asset_id: str = "", priced_in: str = "") -> bool:
    """DESIGN §14: a transfer counts toward a charge only in the charge's own asset. Units of different assets are
    never added up (1 USDT is not 1 ETH); funds in another asset are the intent's unexpected funds. So are funds
    that arrived after the quote expired (`within_quote`): they would pay at a stale rate; the payer opens a new
    attempt instead. And so are funds on an attempt in another asset than the one the intent is paid in
    (`paid_asset_id`, '' while none is): payment_details are in one asset, so a second asset paid on an attempt
    opened before the first funds arrived would be counted nowhere. And so is native coin a contract call sent
    (`by_contract_call`, DESIGN §16): found by the address's balance, not by a transaction to the address."""
    return t.asset_id == charge.asset_id == (paid_asset_id or charge.asset_id) and within_quote(charge, t, priced_in) \
        and not by_contract_call(t)


def split(charge: Charge, transfers: Iterable[ChainTransfer], paid_asset_id: str = "",
          priced_in: str = "") -> tuple[list[ChainTransfer], list[ChainTransfer]]:
    """(transfers that pay the charge, transfers that reached its address but do not count), order kept."""
    own: list[ChainTransfer] = []
    unexpected: list[ChainTransfer] = []
    for t in transfers:
        (own if counts_toward(charge, t, paid_asset_id, priced_in) else unexpected).append(t)
    return own, unexpected


@dataclass(frozen=True)
class ChargeTotals:
    approved: Decimal = Decimal(0)  # confirmed and approved by AML: captured
    rejected: Decimal = Decimal(0)  # confirmed and rejected by AML: frozen
    confirmed: int = 0  # confirmed transfers, whatever their AML result
    pending: int = 0  # seen but unconfirmed, or confirmed and still being screened
    live: int = 0  # seen and not reverted


def charge_totals(transfers: Iterable[ChainTransfer]) -> ChargeTotals:
    approved = rejected = Decimal(0)
    confirmed = pending = live = 0
    for t in transfers:
        if t.status == TransferStatus.REVERTED:
            continue
        live += 1
        if t.status in UNCONFIRMED:
            pending += 1
            continue
        confirmed += 1
        if t.aml_status == AmlStatus.APPROVED:
            approved += units(t)
        elif t.aml_status == AmlStatus.REJECTED:
            rejected += units(t)
        else:
            pending += 1
    return ChargeTotals(approved, rejected, confirmed, pending, live)


def charge_status(totals: ChargeTotals) -> ChargeStatus:
    """Pending while anything is unsettled; Success once approved funds arrived; Failed when every transfer was
    rejected (the checkout reports the payment as failed)."""
    if totals.pending:
        return ChargeStatus.PENDING
    if totals.approved > 0:
        return ChargeStatus.SUCCESS
    if totals.rejected > 0:
        return ChargeStatus.FAILED
    return ChargeStatus.PENDING


def shown_status(charge: Charge, totals: ChargeTotals, intent_status: str, now: int) -> str:
    """An open charge that received nothing is Expired once its quote lapsed or its intent was canceled."""
    if charge.status == ChargeStatus.PENDING and not totals.live and (
            charge.quote_expires_at <= now or intent_status == Status.CANCELED):
        return ChargeStatus.EXPIRED
    return charge.status


def step(decimals: int) -> Decimal:
    return Decimal(1).scaleb(-decimals)


def fee(captured: Decimal, percent: Decimal, decimals: int) -> Decimal:
    return (captured * percent / 100).quantize(step(decimals), rounding=ROUND_HALF_UP)


def text(value: Decimal) -> str:
    """An asset amount as a decimal string without exponent or trailing zeros: "10", "0.003334"."""
    if value == 0:
        return "0"
    return format(value.normalize(), "f")
