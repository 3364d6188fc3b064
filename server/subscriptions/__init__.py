"""Subscriptions (DESIGN §8): created by the payment of a selling plan, renewed by the scheduler, paused, resumed,
canceled and changed with the spec's proration matrix.

    states.py     the state table and its refusals (409s with the spec's codes)
    cycles.py     billing periods from the anchor (month-end clamping)
    pricing.py    FIXED/RECURRING tiers by cycle number
    proration.py  the plan-change matrix and the credit formula
    models.py     the row; aggregate.py / convert.py: the API shape
    billing.py    moves, invoices and their events inside one transaction
    closing.py    invoices closed unpaid (void, uncollectible, dunning giving up), waiting on a payment under way
    locks.py      the one lock order: payment intents, then the subscription, then its invoices
    lifecycle.py  creation with the intent, activation, lapse, invoices paid (an outbox subscriber)
    renewal.py    what falls due: period ends, dunning, auto-resume, scheduled cancels (the scheduler and the
                  test clock run the same steps)
    service.py    the API operations; servicer.py the gRPC servicer
    wiring.py     the composition root's part: the outbox subscriber and the renewal job
"""
