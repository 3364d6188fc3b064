"""The client's IP address as the gRPC server sees it.

The facade sends the address it saw (`x-forwarded-for` metadata, one address). The server believes that metadata only
from a peer on loopback (the facade of the same host) or listed in `trusted_proxies` (a facade on another host);
from anyone else, the client is the gRPC peer itself, so a direct gRPC caller cannot pick its own bucket.
"""

from __future__ import annotations

import ipaddress

FORWARDED = "x-forwarded-for"
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def peer_address(peer: str) -> str:
    """The address of a gRPC peer string: `ipv4:1.2.3.4:5678`, `ipv6:[::1]:5678`, `unix:/path`."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]")
    return peer


def trusted(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address.startswith("unix:")  # a local socket is as local as loopback
    return ip.is_loopback or any(ip in net for net in networks)


def client_ip(metadata: dict[str, str], peer: str, networks: tuple[Network, ...]) -> str:
    address = peer_address(peer)
    forwarded = metadata.get(FORWARDED, "").strip()
    if forwarded and trusted(address, networks):
        try:
            return str(ipaddress.ip_address(forwarded))
        except ValueError:
            pass
    return address


def bucket_of(address: str) -> str:
    """The bucket key of an address: IPv6 clients by their /64 (one subscriber's usual allocation, which a client
    can rotate through freely), IPv4 by the address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)
