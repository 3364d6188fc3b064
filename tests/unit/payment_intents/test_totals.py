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


def test_an_attempt_in_another_asset_than_the_intent_is_paid_in_counts_nothing() -> None:
    eth = _transfer(ETH, 10**15, 18)
    own, unexpected = totals.split(_charge(ETH), [eth], paid_asset_id=USDT)
    assert (own, unexpected) == ([], [eth])


def test_a_transfer_in_the_charges_asset_counts_while_no_asset_is_paid_yet() -> None:
    assert totals.counts_toward(_charge(ETH), _transfer(ETH, 10**15, 18))


def test_the_totals_add_up_every_transfer_by_confirmation_and_screening() -> None:
    seen = [
        _transfer(ETH, 1, 18, status="reverted"),  # first, so that skipping it must not stop the count
        _transfer(ETH, 2, 18, status="submitted", aml=""),
        _transfer(ETH, 3, 18, status="confirming", aml=""),
        _transfer(ETH, 1_500_000, 6),
        _transfer(ETH, 2_000_000, 6),
        _transfer(ETH, 250_000, 6, aml="rejected"),
        _transfer(ETH, 500_000, 6, aml="rejected"),
        _transfer(ETH, 4, 18, aml=""),  # confirmed, still being screened
    ]
    assert totals.charge_totals(seen) == totals.ChargeTotals(
        approved=Decimal("3.5"), rejected=Decimal("0.75"), confirmed=5, pending=3, live=7)


def test_less_than_one_unit_approved_is_a_success() -> None:
    counted = totals.ChargeTotals(approved=Decimal("0.5"), confirmed=1, live=1)
    assert totals.charge_status(counted) == totals.ChargeStatus.SUCCESS


def test_less_than_one_unit_all_rejected_is_a_failure() -> None:
    counted = totals.ChargeTotals(rejected=Decimal("0.5"), confirmed=1, live=1)
    assert totals.charge_status(counted) == totals.ChargeStatus.FAILED


def test_an_open_charge_that_received_nothing_is_expired_from_its_quotes_last_second() -> None:
    charge = _charge(ETH)
    shown = totals.shown_status(charge, totals.ChargeTotals(), "RequiresPaymentMethod", now=charge.quote_expires_at)
    assert shown == "Expired"


def test_an_open_charge_that_received_nothing_is_pending_while_its_quote_holds() -> None:
    charge = _charge(ETH)
    shown = totals.shown_status(charge, totals.ChargeTotals(), "RequiresPaymentMethod",
                                now=charge.quote_expires_at - 1)
    assert shown == "Pending"


def test_an_open_charge_of_a_canceled_intent_that_received_nothing_is_expired() -> None:
    charge = _charge(ETH)
    shown = totals.shown_status(charge, totals.ChargeTotals(), "Canceled", now=charge.quote_expires_at - 1)
    assert shown == "Expired"


def test_an_open_charge_with_a_transfer_on_its_way_is_not_expired() -> None:
    charge = _charge(ETH)
    shown = totals.shown_status(charge, totals.ChargeTotals(pending=1, live=1), "RequiresPaymentMethod",
                                now=charge.quote_expires_at + 60)
    assert shown == "Pending"


def test_a_closed_charge_keeps_its_status_after_its_quote() -> None:
    charge = _charge(ETH)
    charge.status = totals.ChargeStatus.FAILED
    shown = totals.shown_status(charge, totals.ChargeTotals(), "RequiresPaymentMethod",
                                now=charge.quote_expires_at + 60)
    assert shown == "Failed"


def test_a_fee_is_the_percent_of_the_captured_amount() -> None:
    assert totals.fee(Decimal(200), Decimal("2.5"), 2) == Decimal("5.00")


def test_a_fee_rounds_half_a_minor_unit_up() -> None:
    assert totals.fee(Decimal("0.25"), Decimal(10), 2) == Decimal("0.03")  # 0.025: half-even would give 0.02


def test_an_amount_is_written_without_exponent_or_trailing_zeros() -> None:
    assert [totals.text(Decimal(v)) for v in ("10", "1", "0.0033340", "0", "-0")] == ["10", "1", "0.003334", "0", "0"]
