"""Webhooks: endpoints, and signed, retried, at-least-once delivery of events from the transactional outbox.

    signing.py   the Paygate-Signature scheme: sign() and verify_signature() (what receivers use)
    urls.py      which endpoint addresses are allowed (no internal networks unless the operator allows them), and
                 the one vetted address a delivery connects to
    (secrets)    signing secrets encrypted at rest with the shared box (server/sealing.py, Fernet)
    queue.py     the outbox subscriber that schedules one delivery per subscribed endpoint; resends
    retry.py     backoff with jitter for three days, a pure function
    delivery.py  the scheduler job: claim due attempts, send them, record the outcomes in batches (a pipeline)
    attempts.py  per endpoint a bounded pool of keep-alive connections; one deadline per attempt; signing
    http11.py    the minimal HTTP/1.1 client those connections speak
    service.py, servicer.py, convert.py, models.py   the WebhookEndpoint resource
    wiring.py    register(runtime): the outbox subscriber and the delivery job

"""

from server.webhooks.signing import sign, verify_signature

__all__ = ["sign", "verify_signature"]
