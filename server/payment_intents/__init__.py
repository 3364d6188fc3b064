"""Payment intents and their charges (payment attempts). See states.py for the state machine:

    RequiresPaymentMethod ──transaction_seen──▶ Processing ──paid_in_full──▶ Success ──refunded──▶ Refunded
          │    ▲                                 │  │  │                       ▲
          │    └──payment_failed / reverted──────┘  │  └──paid_partially──▶ PartialPaid ──refunded──▶ Refunded
          │                                         │
          └──cancel / expire──▶ Canceled ◀──cancel──┘   (only before confirmed funds)

Facts that are not states (BTCPay's "exception status"): overpayment (`amount_overpaid`) and funds received after
cancel or expiry (`amount_received_late`), both kept on the intent; every transaction stays on its charge.
"""
