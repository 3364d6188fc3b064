"""Which addresses an endpoint may have, and which address a delivery connects to.

A webhook must not become a way into the gateway's own network: loopback, private, link-local and otherwise
internal addresses (also when embedded in an IPv6 form: IPv4-mapped or -compatible, NAT64, 6to4, Teredo) are refused
in both modes unless the operator allows them (`webhooks.allow_private_targets`, for a receiver on the same machine).
Live mode also requires https. A host must be a valid domain name (IDNA) or an IP literal, so that nothing stored
can break a sender later.

`vet()` resolves the host once and checks every address; the delivery then connects to the address it returns
(`Target`), so a name re-pointed in between (DNS rebinding) cannot move it.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx
import idna

from server.errors import invalid

MAX_URL_LENGTH = 2000
MAX_HOST_LENGTH = 253
LOOKUP_SECONDS = 5.0
LOOKUP_THREADS = 16
PRIVATE_REFUSED = "private, loopback and link-local addresses are refused"
_INTERNAL_NAMES = ("localhost", ".localhost", ".local", ".internal", ".localdomain")
# Letters, digits, hyphens inside; underscores too (`_dmarc`-style names exist in DNS).
_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")  # RFC 8215: local use, never a public destination

Resolver = Callable[[str], Awaitable[list[str]]]
_pool: ThreadPoolExecutor | None = None
_in_flight: dict[str, Future[list[str]]] = {}  # host → its lookup under way


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries: a private one inside makes the whole address private."""
    out: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        out.append(ip.ipv4_mapped)
    if int(ip) >> 32 == 0:  # IPv4-compatible ::a.b.c.d (deprecated, still routed by some stacks)
        out.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    if ip in _NAT64:
        out.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    if ip.sixtofour is not None:
        out.append(ip.sixtofour)
    if ip.teredo is not None:
        out.extend(ip.teredo)
    return out


def _is_private_ipv4(ip: ipaddress.IPv4Address) -> bool:
    return not ip.is_global or ip.is_multicast


def is_private(address: str) -> bool:
    """True for any address a webhook must not reach without the operator's consent."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv4Address):
        return _is_private_ipv4(ip)
    if ip in _NAT64_LOCAL or any(_is_private_ipv4(v4) for v4 in _embedded_ipv4(ip)):
        return True
    if ip.ipv4_mapped is not None:
        return False  # a public IPv4 address, written the IPv6 way
    return not ip.is_global or ip.is_multicast or ip.is_site_local


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _ascii_host(field: str, url: str) -> str:
    """The host as sent on the wire (A-labels; an IPv6 literal without brackets), or `parameter_invalid`."""
    if any(c.isspace() or not c.isprintable() for c in url):
        raise invalid(field, "must not contain spaces or control characters")
    try:
        host = httpx.URL(url).raw_host.decode("ascii")
    except Exception:  # httpx.InvalidURL, or an IDNA error raised while httpx encodes the host
        raise invalid(field, "not a valid URL") from None
    if _is_ip(host):
        return host
    name = host.lower().removesuffix(".")
    labels = name.split(".")
    if not name or len(name) > MAX_HOST_LENGTH or not all(_LABEL.match(label) for label in labels):
        raise invalid(field, "the host is not a valid domain name")
    for label in labels:
        if label.startswith("xn--"):
            try:
                idna.decode(label)
            except (idna.IDNAError, UnicodeError):
                raise invalid(field, "the host is not a valid international domain name") from None
    return host


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
    _ascii_host(field, url)
    if livemode and parts.scheme != "https":
        raise invalid(field, "must be an https URL in live mode")
    return url


def _system_lookup(host: str) -> list[str]:
    return [str(info[4][0]) for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)]


def _lookup_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(LOOKUP_THREADS, thread_name_prefix="paygate-dns")
    return _pool


async def resolve(host: str) -> list[str]:
    """Every address of `host` (the system resolver).

    A lookup whose name server never answers holds its thread until the system resolver gives up, whatever our
    time-out (LOOKUP_SECONDS only stops the waiting). So that one merchant's silent name server cannot take the
    threads every other delivery needs: the lookups run in a pool of their own, not the loop's default executor,
    and a name has at most one lookup under way, which later callers wait for (each caller's time-out cancels only
    its own wait)."""
    pending = _in_flight.get(host)
    if pending is None:
        pending = _lookup_pool().submit(_system_lookup, host)
        _in_flight[host] = pending

        def done(f: Future[list[str]]) -> None:
            if _in_flight.get(host) is f:
                del _in_flight[host]
        pending.add_done_callback(done)
    return await asyncio.shield(asyncio.wrap_future(pending))


@dataclass(frozen=True)
class Target:
    """Where one delivery goes: the vetted `address`, with the URL's own host for Host, SNI and the certificate."""

    url: str
    host: str
    address: str
    # The address is internal (the operator allowed it): nothing it answers is stored.
    private: bool

    @property
    def is_name(self) -> bool:
        return not _is_ip(self.host)


async def vet(field: str, url: str, *, allow_private: bool, resolve: Resolver = resolve) -> Target:
    """Resolves the host once and checks every address; `parameter_invalid` naming `field` when refused."""
    host = _ascii_host(field, url)
    internal_name = host.lower().removesuffix(".") == "localhost" or \
        host.lower().removesuffix(".").endswith(_INTERNAL_NAMES)
    if internal_name and not allow_private:
        raise invalid(field, PRIVATE_REFUSED)
    if _is_ip(host):
        addresses = [host]
    else:
        try:
            async with asyncio.timeout(LOOKUP_SECONDS):  # not wait_for: it can swallow a cancellation (3.11)
                addresses = await resolve(host)
        except (TimeoutError, OSError, UnicodeError):
            raise invalid(field, f"the host {host!r} does not resolve") from None
    if not addresses:
        raise invalid(field, f"the host {host!r} does not resolve")
    private = internal_name or any(is_private(a) for a in addresses)
    if private and not allow_private:
        raise invalid(field, PRIVATE_REFUSED)
    return Target(url=url, host=host, address=addresses[0].split("%")[0], private=private)


async def check(field: str, url: str, *, livemode: bool, allow_private: bool, resolve: Resolver = resolve) -> str:
    """The URL an endpoint may be registered with: `check_syntax`, then (unless the operator allows private
    targets, when any address will do) every address the host resolves to must be public."""
    url = check_syntax(field, url, livemode=livemode)
    if not allow_private:
        await vet(field, url, allow_private=False, resolve=resolve)
    return url


def loggable(url: str) -> str:
    """scheme://host/path of a URL: query strings and fragments often carry tokens and never reach a log."""
    try:
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.hostname or ''}{parts.path}"
    except ValueError:
        return "(invalid url)"
