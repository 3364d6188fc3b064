"""Orders (DESIGN §17): what a payment link purchase bought, made once when its payment intent succeeds.

models.py (the rows), service.py (made from the intent's `payment_intent.succeeded` event, in that event's
transaction; read and listed), convert.py (rows → proto), servicer.py (gRPC), wiring.py (SERVICES, the outbox
subscriber). payment_intents knows nothing of orders: an order follows the intent's event.
"""
