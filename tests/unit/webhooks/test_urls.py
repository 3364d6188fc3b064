import asyncio

import pytest

from server.errors import InvalidArgument
from server.webhooks import urls


def check(url, livemode, addresses=("93.184.215.14",), allow_private=False):
    async def resolve(host):
        return list(addresses)

    return asyncio.run(urls.check("url", url, livemode=livemode, allow_private=allow_private, resolve=resolve))


@pytest.mark.parametrize("url", ["ftp://example.com/x", "example.com/x", "https://", "javascript:alert(1)",
                                 "https://user:pw@example.com/x", "https://example.com:99999/x"])
def test_only_http_and_https_urls_are_accepted(url):
    with pytest.raises(InvalidArgument, match=r"^url: "):
        check(url, livemode=False)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/h", "http://localhost/h", "http://10.0.0.5/h",
                                 "http://[::1]/h", "https://192.168.1.1/h"])
def test_private_and_loopback_addresses_are_allowed_in_test_mode_with_the_operators_consent(url):
    assert check(url, livemode=False, allow_private=True) == url


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/h", "http://localhost/h", "http://10.0.0.5/h",
                                 "http://[::1]/h", "https://192.168.1.1/h"])
def test_private_and_loopback_addresses_are_refused_in_test_mode_without_the_operators_consent(url):
    with pytest.raises(InvalidArgument, match="private"):
        check(url, livemode=False)


@pytest.mark.parametrize("url", ["https://127.0.0.1/h", "https://localhost/h", "https://db.internal/h",
                                 "https://10.0.0.5/h", "https://172.16.3.4/h", "https://192.168.1.1/h",
                                 "https://169.254.169.254/h", "https://[::1]/h", "https://[fd00::1]/h",
                                 "https://[::ffff:127.0.0.1]/h", "https://0.0.0.0/h"])
def test_private_and_loopback_addresses_are_refused_in_live_mode(url):
    with pytest.raises(InvalidArgument, match="private"):
        check(url, livemode=True)


def test_a_name_resolving_to_a_private_address_is_refused_in_live_mode():
    with pytest.raises(InvalidArgument, match="private"):
        check("https://hooks.example.com/h", livemode=True, addresses=("93.184.215.14", "10.0.0.1"))


def test_a_public_https_url_is_accepted_in_live_mode():
    assert check("https://hooks.example.com/h", livemode=True) == "https://hooks.example.com/h"


def test_plain_http_is_refused_in_live_mode():
    with pytest.raises(InvalidArgument, match="https"):
        check("http://hooks.example.com/h", livemode=True)


@pytest.mark.parametrize("address", [
    "10.0.0.1", "127.0.0.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "fe80::1",
    "fd00::1", "fec0::1",
    "::ffff:10.0.0.1", "::ffff:127.0.0.1",            # IPv4-mapped
    "::10.0.0.1", "::169.254.169.254",                # IPv4-compatible
    "64:ff9b::a00:1", "64:ff9b::7f00:1",              # NAT64 well-known prefix, private IPv4 inside
    "64:ff9b:1::808:808",                             # NAT64 local-use prefix: never public
    "2002:a00:1::", "2002:c0a8:101::1",               # 6to4 of 10.0.0.1 and 192.168.1.1
    "2001:0:4136:e378:8000:63bf:f5ff:fffe",           # Teredo, client 10.0.0.1 (stored inverted)
])
def test_private_addresses_and_their_ipv6_embeddings_are_private(address):
    assert urls.is_private(address)


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8",
                                     "64:ff9b::808:808", "2002:808:808::"])
def test_public_addresses_and_their_ipv6_embeddings_are_public(address):
    assert not urls.is_private(address)


@pytest.mark.parametrize("url", ["http://xn--zz.com/", "http://a b.example/h", "http://exa\tmple.com/h",
                                 "http://ex\u0000ample.com/h", "http://" + "a" * 64 + ".example/h",
                                 "http://" + ".".join(["abcdefgh"] * 30) + "/h", "http://-bad.example/h",
                                 "http://bad-.example/h", "http://a..b.example/h"])
def test_hosts_that_are_not_valid_domain_names_are_refused(url):
    with pytest.raises(InvalidArgument, match=r"^url: "):
        check(url, livemode=False, allow_private=True)


@pytest.mark.parametrize("url", ["http://bücher.example/h", "http://xn--bcher-kva.example/h",
                                 "http://EXAMPLE.com./h", "http://_dmarc.example.com/h"])
def test_international_and_unusual_but_valid_hosts_are_accepted(url):
    assert check(url, livemode=False, allow_private=True) == url
