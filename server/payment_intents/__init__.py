"""Payment intents and their charges (payment attempts). See states.py for the state machine:

    RequiresPaymentMethod ──transaction_seen──▶ Processing ──paid_in_full──▶ Success ──refunded──▶ Refunded
          │    ▲                                 │     │                       ▲
          │    └──payment_failed / reverted──────┘     └──paid_partially──▶ PartialPaid ──refunded──▶ Refunded
          │
          └──cancel / expire──▶ Canceled   (never from Processing: funds in flight would land on a canceled intent)

Facts that are not states (BTCPay's "exception status"): overpayment (`amount_overpaid`) and funds received after
cancel or expiry (`amount_received_late`), both kept on the intent; every transaction stays on its charge. Funds an
ended intent (Canceled, Refunded) received are refundable like any payment (refunds.service.refundable).

Assets never mix (DESIGN §14): a transfer counts toward a charge only in the charge's own asset (totals.counts_toward);
a transfer in another asset to a charge's address is the intent's `unexpected_funds` (shown, never paid; refundable in
their own asset with the refund's `asset_id`, up to what arrived). So are funds that arrived after their quote
lapsed, and funds in a second asset once the intent is paid in a first.

Attempts are bounded: one open charge per asset (chosen again, it is returned and becomes current), at most
`max_charges_per_intent` charges per intent, and each deposit address is scanned only until its `watch_until`.

How to pay is one handler per payment method (methods.py `PaymentMethod`, registered by name): crypto here
(crypto_method.py: attempts.py's quotes and deposit addresses), cards over server/cards (server/cards/method.py).
Nothing else compares `payment_method_type`.
"""
