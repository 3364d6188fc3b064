"""Rate limits (DESIGN.md §14): token buckets per secret key, and per client secret and client IP on checkout calls.

The pipeline makes one call, `Limiter.check`, right after authentication. Buckets live in process memory on SQLite
(one process) and in the `rate_limit_buckets` table on PostgreSQL, so every worker and host shares one budget.
"""

from server.ratelimit.limiter import Limiter, RateLimited

__all__ = ["Limiter", "RateLimited"]
