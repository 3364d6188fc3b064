"""What a charge's transfers add up to: only transfers in the charge's own asset count (DESIGN §14)."""

from __future__ import annotations

from decimal import Decimal

from server.chains.models import ChainTransfer
from server.payment_intents import totals
from server.payment_intents.models import Charge

ETH, USDT = "ETH-ETH-TEST", "USDT-ETH-TEST"


def _charge(asset_id: str) -> Charge:
    return Charge(id="ch_1", payment_intent_id="pi_1", merchant_id="mer_1", livemode=False,
                  payment_method_type="crypto", asset_id=asset_id, network="ETH-TEST", amount=Decimal(1),
                  exchange_rate=Decimal(3000), deposit_address="0x" + "1" * 40, address_index=0,
                  quote_expires_at=0, created=0)


def _transfer(asset_id: str, amount_base: int, decimals: int, status: str = "confirmed",
              aml: str = "approved") -> ChainTransfer:
    return ChainTransfer(id=f"tx_{asset_id}_{amount_base}", network="ETH-TEST", tx_hash="0x1", block_number=1,
                         block_hash="0xb", from_address="0x" + "a" * 40, to_address="0x" + "1" * 40,
                         asset_id=asset_id, amount_base=Decimal(amount_base), decimals=decimals, owner_id="ch_1",
                         status=status, aml_status=aml, created_at=0, updated_at=0)


def test_a_transfer_in_another_asset_is_unexpected_not_counted() -> None:
    usdt = _transfer(USDT, 1_000_000, 6)
    eth = _transfer(ETH, 10**15, 18)
    own, unexpected = totals.split(_charge(ETH), [usdt, eth])
    assert own == [eth] and unexpected == [usdt]
    assert totals.charge_totals(own).approved == Decimal("0.001")


def test_only_other_assets_leave_the_charge_with_nothing_seen() -> None:
    own, unexpected = totals.split(_charge(ETH), [_transfer(USDT, 1_000_000, 6, status="submitted", aml="")])
    counted = totals.charge_totals(own)
    assert (counted.approved, counted.pending, counted.live) == (0, 0, 0) and len(unexpected) == 1
    assert totals.charge_status(counted) == totals.ChargeStatus.PENDING


def _late(charge: Charge) -> ChainTransfer:
    """A transfer first seen well after the charge's quote lapsed."""
    late = _transfer(charge.asset_id, 10**15, 18)
    late.created_at = charge.quote_expires_at + charge.quote_grace_seconds + 1
    return late


def test_a_transfer_first_seen_after_its_quote_lapsed_does_not_count() -> None:
    charge = _charge(ETH)
    own, unexpected = totals.split(charge, [_late(charge)], priced_in="USD")
    assert own == [] and len(unexpected) == 1


def test_a_transfer_first_seen_within_the_grace_after_its_quote_counts() -> None:
    charge = _charge(ETH)
    on_time = _transfer(ETH, 10**15, 18)
    on_time.created_at = charge.quote_expires_at + charge.quote_grace_seconds
    assert totals.split(charge, [on_time], priced_in="USD")[0] == [on_time]


def test_a_charge_opened_before_the_grace_was_a_setting_keeps_thirty_seconds() -> None:
    assert _charge(ETH).quote_grace_seconds == 30


def test_the_grace_a_charge_was_opened_with_decides_not_the_default() -> None:
    charge = _charge(ETH)
    charge.quote_grace_seconds = 5
    at_the_edge, after = _transfer(ETH, 10**15, 18), _transfer(ETH, 2 * 10**15, 18)
    at_the_edge.created_at, after.created_at = charge.quote_expires_at + 5, charge.quote_expires_at + 6
    own, unexpected = totals.split(charge, [at_the_edge, after], priced_in="USD")
    assert (own, unexpected) == ([at_the_edge], [after])


def test_a_late_transfer_counts_when_the_intent_is_priced_in_the_charges_own_asset() -> None:
    charge = _charge(ETH)
    late = _late(charge)
    assert totals.split(charge, [late], priced_in=ETH)[0] == [late]  # no rate to go stale
