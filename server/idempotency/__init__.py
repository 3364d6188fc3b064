"""Idempotency keys: the first response to a POST is kept for 24 h and replayed for a retry."""
