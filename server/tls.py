"""The process's one client TLS context: building one loads the CA bundle (tens of milliseconds of CPU), so every
outgoing HTTPS client of the process (webhooks, chain nodes, the card provider's set-up calls) shares it."""

from __future__ import annotations

import ssl
from functools import cache

import httpx


@cache
def client_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()
