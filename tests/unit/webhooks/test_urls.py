import asyncio

import pytest

from server.errors import InvalidArgument
from server.webhooks import urls


def check(url, livemode, addresses=("93.184.215.14",)):
    async def resolve(host):
        return list(addresses)

    return asyncio.run(urls.check("url", url, livemode=livemode, resolve=resolve))


@pytest.mark.parametrize("url", ["ftp://example.com/x", "example.com/x", "https://", "javascript:alert(1)",
                                 "https://user:pw@example.com/x", "https://example.com:99999/x"])
def test_only_http_and_https_urls_are_accepted(url):
    with pytest.raises(InvalidArgument, match=r"^url: "):
        check(url, livemode=False)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/h", "http://localhost/h", "http://10.0.0.5/h",
                                 "http://[::1]/h", "https://192.168.1.1/h"])
def test_private_and_loopback_addresses_are_allowed_in_test_mode(url):
    assert check(url, livemode=False) == url


@pytest.mark.parametrize("url", ["https://127.0.0.1/h", "https://localhost/h", "https://db.internal/h",
                                 "https://10.0.0.5/h", "https://172.16.3.4/h", "https://192.168.1.1/h",
                                 "https://169.254.169.254/h", "https://[::1]/h", "https://[fd00::1]/h",
                                 "https://[::ffff:127.0.0.1]/h", "https://0.0.0.0/h"])
def test_private_and_loopback_addresses_are_refused_in_live_mode(url):
    with pytest.raises(InvalidArgument, match="private and loopback"):
        check(url, livemode=True)


def test_a_name_resolving_to_a_private_address_is_refused_in_live_mode():
    with pytest.raises(InvalidArgument, match="private and loopback"):
        check("https://hooks.example.com/h", livemode=True, addresses=("93.184.215.14", "10.0.0.1"))


def test_a_public_https_url_is_accepted_in_live_mode():
    assert check("https://hooks.example.com/h", livemode=True) == "https://hooks.example.com/h"


def test_plain_http_is_refused_in_live_mode():
    with pytest.raises(InvalidArgument, match="https"):
        check("http://hooks.example.com/h", livemode=True)
