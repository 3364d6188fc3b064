"""Card payments (DESIGN §9): the domain glue between payment intents and the card rails.

    models.py     card provider keys per merchant and mode (sealed), saved payment methods (`pm_`)
    accounts.py   `paygate merchants set-card-provider` and reading a merchant's keys back
    method.py     the card payment method's handler (server/payment_intents/methods.py `PaymentMethod`)
    payments.py   a card charge: create, confirm (token or saved card), apply the provider's outcome
    calls.py      save before calling out: no provider call inside a unit of work (replayed questions, `PayNow`)
    limits.py     at most 4 provider calls per merchant at once
    outcome.py    the provider's webhook and the read-through of pending card charges
    recovery.py   a provider payment no charge records (a crash before our commit), rebuilt from its metadata, from
                  its webhook or the scheduler's pass over the provider's recent payments
    saved.py      saved cards: the provider customer (once), the `pm_` rows, listing, `charge_saved_card`
    refunds.py    card refunds through the provider
    wiring.py     the recovery pass as a scheduler job

This package speaks only to the card family's contract (server/rails/card.py); the providers are rails
(server/rails/provider_a/: the `stripe` library), found by id in `Cards.rails`. Every function takes its
dependencies (`Cards`: sealing, rails) as parameters.
"""
