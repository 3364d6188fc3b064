"""The refusals of refund creation, each with the spec's `error_code` (all 400: nothing was changed).

    InvalidArgument
    ├── InvalidPaymentIntent   invalid_payment_intent  unknown, another merchant's, or not Success/PartialPaid
    ├── RefundAmountExceeded   refund_amount_exceeded  more than what remains refundable
    └── InsufficientFunds      insufficient_funds      the treasury holds less of the asset than the amount
        └── AboveAvailable     insufficient_funds      the merchant's available balance is less than the amount
"""

from __future__ import annotations

from server.errors import InvalidArgument


class InvalidPaymentIntent(InvalidArgument):
    reason = "invalid_payment_intent"

    def __init__(self) -> None:
        # One message for unknown, foreign and unrefundable intents, so existence never leaks (DESIGN §11).
        super().__init__("payment_intent_id: no refundable payment intent with that id "
                         "(it must exist and be Success or PartialPaid)", field="payment_intent_id")


class RefundAmountExceeded(InvalidArgument):
    reason = "refund_amount_exceeded"

    def __init__(self, refundable: str, asset_id: str) -> None:
        super().__init__(f"amount: at most {refundable} {asset_id} remains refundable on this payment intent",
                         field="amount")


class InsufficientFunds(InvalidArgument):
    reason = "insufficient_funds"

    def __init__(self, asset_id: str, address: str) -> None:
        super().__init__(f"amount: the treasury {address} holds less {asset_id} than the refund; fund it first",
                         field="amount")


class AboveAvailable(InsufficientFunds):
    """The treasury may hold the coin, but not as the merchant's to give: it also holds paygate's processing fees,
    amounts locked for payouts and refunds, and coin sent by hand that nobody recorded."""

    def __init__(self, amount: str, available: str, asset_id: str) -> None:
        InvalidArgument.__init__(
            self, f"amount: {amount} {asset_id} is more than the merchant's available {available} {asset_id}; "
                  "fund the treasury and record it (paygate treasury record-funding) to refund more", field="amount")
