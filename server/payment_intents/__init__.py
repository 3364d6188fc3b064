"""Payment intents and their charges (payment attempts). See states.py for the state machine:

    RequiresPaymentMethod ──transaction_seen──▶ Processing ──paid_in_full──▶ Success ──refunded──▶ Refunded
          │    ▲                                 │  │  │                       ▲
          │    └──payment_failed / reverted──────┘  │  └──paid_partially──▶ PartialPaid ──refunded──▶ Refunded
          │                                         │
          └──cancel / expire──▶ Canceled ◀──cancel──┘   (only before confirmed funds)

Facts that are not states (BTCPay's "exception status"): overpayment (`amount_overpaid`) and funds received after
cancel or expiry (`amount_received_late`), both kept on the intent; every transaction stays on its charge.

Assets never mix (DESIGN §14): a transfer counts toward a charge only in the charge's own asset (totals.counts_toward);
a transfer in another asset to a charge's address is the intent's `unexpected_funds` (shown, never paid, never
refundable through the refund API, which pays back at most what was captured in the refund's asset).

Attempts are bounded: one open charge per asset (chosen again, it is returned and becomes current), at most
`max_charges_per_intent` charges per intent, and each deposit address is scanned only until its `watch_until`.
"""
