"""Which addresses an endpoint may have. Live mode refuses plain HTTP and any host that resolves to a private,
loopback, link-local or otherwise internal address (the gateway must not become a way into its own network);
test mode allows them, so a merchant can point an endpoint at a receiver on their own machine."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from server.errors import invalid

MAX_URL_LENGTH = 2000
_INTERNAL_NAMES = ("localhost", ".localhost", ".local", ".internal", ".localdomain")

Resolver = Callable[[str], Awaitable[list[str]]]


def _is_internal_ip(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_multicast


def check_syntax(field: str, url: str, *, livemode: bool) -> str:
    """The URL, or `parameter_invalid` naming the field. No network access."""
    url = url.strip()
    if not url:
        raise invalid(field, "is required")
    if len(url) > MAX_URL_LENGTH:
        raise invalid(field, f"at most {MAX_URL_LENGTH} characters")
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        _ = parts.port  # raises on a bad port
    except ValueError:
        raise invalid(field, "not a valid URL") from None
    if parts.scheme not in ("http", "https") or not host:
        raise invalid(field, "must be an http or https URL")
    if parts.username or parts.password:
        raise invalid(field, "must not carry credentials")
    if not livemode:
        return url
    if parts.scheme != "https":
        raise invalid(field, "must be an https URL in live mode")
    lowered = host.lower().rstrip(".")
    if lowered == "localhost" or lowered.endswith(_INTERNAL_NAMES):
        raise invalid(field, "private and loopback addresses are refused in live mode")
    try:
        internal = _is_internal_ip(lowered)
    except ValueError:
        return url  # a name: resolved by check()
    if internal:
        raise invalid(field, "private and loopback addresses are refused in live mode")
    return url


async def _resolve(host: str) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


async def check(field: str, url: str, *, livemode: bool, resolve: Resolver = _resolve) -> str:
    """`check_syntax`, then in live mode every address the host resolves to must be public."""
    url = check_syntax(field, url, livemode=livemode)
    if not livemode:
        return url
    host = urlsplit(url).hostname or ""
    try:
        ipaddress.ip_address(host)
        return url  # a literal, already checked
    except ValueError:
        pass
    try:
        addresses = await asyncio.wait_for(resolve(host), timeout=5)
    except (TimeoutError, OSError):
        raise invalid(field, f"the host {host!r} does not resolve") from None
    if not addresses or any(_is_internal_ip(a) for a in addresses):
        raise invalid(field, "private and loopback addresses are refused in live mode")
    return url
