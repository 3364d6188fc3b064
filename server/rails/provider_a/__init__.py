"""The card rail: provider_a, which is Stripe's API reached with the official `stripe` library (DESIGN §9).

It implements the card family's `CardProvider` (server/rails/card.py: values and errors too).

    client.py   ProviderA (one merchant key), ProviderARail (the registry's entry), webhook verification

Decimal amounts and the provider's minor-unit integers convert in server/rails/card.py (`to_minor`, `from_minor`).
"""

from server.rails.card import BadSignature, Card, CardProvider, Declined, Payment, ProviderRefund, ProviderUnavailable
from server.rails.provider_a.client import (
           PROVIDER,
           ClientFactory,
           ProviderA,
           ProviderARail,
           client_factory,
           verify_event,
)

__all__ = ["PROVIDER", "BadSignature", "Card", "CardProvider", "ClientFactory", "Declined", "Payment", "ProviderA",
           "ProviderARail", "ProviderRefund", "ProviderUnavailable", "client_factory", "verify_event"]
