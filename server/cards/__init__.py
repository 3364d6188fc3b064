"""Card payments through provider_a (DESIGN §9): the domain glue between payment intents and the card rail.

    models.py     provider_a keys per merchant and mode (sealed), saved payment methods (`pm_`)
    accounts.py   `paygate merchants set-card-provider` and reading a merchant's keys back
    payments.py   a card charge: create, confirm (token or saved card), apply the provider's outcome
    outcome.py    the provider's webhook and the read-through of pending card charges
    saved.py      saved cards: the provider customer (once), the `pm_` rows, listing, `charge_saved_card`
    refunds.py    card refunds through the provider

The provider itself (the `stripe` library, pointed at `provider_a_api_base`) is server/rails/provider_a/.
Every function takes its dependencies (`Cards`: settings, sealing, client factory) as parameters.
"""
