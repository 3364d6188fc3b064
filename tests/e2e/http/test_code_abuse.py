"""One-time codes against strangers (DESIGN §16): wrong guesses count per (address, client IP) and lock the code for
that IP only, so a stranger cannot lock the owner of an address out; codes sent are capped per client IP (10 an hour)
and per payment link (100 an hour) besides per address (5 an hour), each answered `429 rate_limited` with
`Retry-After`.

The service sees the peer address: each client here is bound to its own loopback address (127.0.0.2, 127.0.0.3, …),
which the facade passes on to the gRPC server as the client IP (no proxy is trusted, so `X-Forwarded-For` is not
read). The paygate of this module runs with the default caps on tests/clock.py's clock, moved an hour on before each
test so that no test's sends count against another's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import fails, ok
from tests.e2e.http.test_customer_identity import create_payment_link, other_code
from tests.e2e.http.test_verification_codes import Clock
from tests.harness import TLS, Service, start, stop
from tests.mail import Mailbox

OWNER, STRANGER = "127.0.0.2", "127.0.0.3"


@pytest.fixture(scope="module")
def clock(tmp_path_factory: pytest.TempPathFactory) -> Clock:
    return Clock(tmp_path_factory.mktemp("clock") / "offset")


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, mailbox: Mailbox,
            clock: Clock) -> Iterator[Service]:
    """This module's paygate, with the default caps on codes (`merchant` and `api` use it)."""
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"code-abuse-{request.param}")),
                extra_env={"PAYGATE_SMTP_URL": mailbox.url}, clock_file=clock.path)
    yield svc
    stop(svc)


@pytest.fixture(autouse=True)
def new_hour(clock: Clock) -> None:
    clock.forward(3601)


@pytest.fixture
def link_id(api: httpx.Client) -> str:
    return create_payment_link(api)


def client_from(service: Service, ip: str) -> httpx.Client:
    """A shopper's browser at `ip`: no API key, its connections made from that address."""
    return httpx.Client(base_url=service.http_url, timeout=30,
                        transport=httpx.HTTPTransport(local_address=ip, verify=TLS))


def ask(page: httpx.Client, link_id: str, email: str) -> httpx.Response:
    return page.post("/checkout/verification_codes", json={"payment_link_id": link_id, "email": email})


def code_sent(page: httpx.Client, mailbox: Mailbox, link_id: str, email: str) -> str:
    since = mailbox.mark()
    ok(ask(page, link_id, email))
    return mailbox.code_for(email, since)


def sign_in(page: httpx.Client, link_id: str, email: str, code: str) -> httpx.Response:
    """The checkout page's own sign-in: starting a checkout with the address and its code."""
    return page.post("/checkout/sessions", json={"payment_link_id": link_id, "email": email,
                                                 "verification_code": code})


def guess_wrong(page: httpx.Client, link_id: str, email: str, code: str, times: int = 5) -> None:
    for _ in range(times):
        fails(sign_in(page, link_id, email, other_code(code)), 400, "verification_code_invalid",
              "verification_code")


def started(response: httpx.Response) -> dict[str, Any]:
    body: dict[str, Any] = ok(response)
    assert body["payment_intent_id"].startswith("pi_")
    return body


# ---------------------------------------------------------------- wrong guesses


def test_a_strangers_five_wrong_guesses_from_another_ip_leave_the_owners_code_working(
        service: Service, mailbox: Mailbox, link_id: str) -> None:
    with client_from(service, OWNER) as owner, client_from(service, STRANGER) as stranger:
        code = code_sent(owner, mailbox, link_id, "ann@example.com")
        guess_wrong(stranger, link_id, "ann@example.com", code)
        assert started(sign_in(owner, link_id, "ann@example.com", code))["email"] == "ann@example.com"


def test_a_strangers_guesses_after_the_fifth_are_refused_while_the_owners_code_works(
        service: Service, mailbox: Mailbox, link_id: str) -> None:
    with client_from(service, OWNER) as owner, client_from(service, STRANGER) as stranger:
        code = code_sent(owner, mailbox, link_id, "ann@example.com")
        guess_wrong(stranger, link_id, "ann@example.com", code)
        fails(sign_in(stranger, link_id, "ann@example.com", code), 400, "verification_code_invalid",
              "verification_code")
        started(sign_in(owner, link_id, "ann@example.com", code))


def test_five_wrong_guesses_from_one_ip_lock_that_code_for_that_ip(
        service: Service, mailbox: Mailbox, link_id: str) -> None:
    with client_from(service, STRANGER) as page:
        code = code_sent(page, mailbox, link_id, "ann@example.com")
        guess_wrong(page, link_id, "ann@example.com", code)
        refused = sign_in(page, link_id, "ann@example.com", code)
        fails(refused, 400, "verification_code_invalid", "verification_code")
        assert "request a new one" in refused.json()["msg"]


def test_four_wrong_guesses_from_one_ip_leave_the_code_working_for_it(
        service: Service, mailbox: Mailbox, link_id: str) -> None:
    with client_from(service, OWNER) as page:
        code = code_sent(page, mailbox, link_id, "ann@example.com")
        guess_wrong(page, link_id, "ann@example.com", code, times=4)
        started(sign_in(page, link_id, "ann@example.com", code))


def test_a_new_code_does_not_buy_the_same_ip_five_more_guesses_until_ten_minutes_pass(
        service: Service, mailbox: Mailbox, link_id: str, clock: Clock) -> None:
    with client_from(service, STRANGER) as page:
        first = code_sent(page, mailbox, link_id, "ann@example.com")
        guess_wrong(page, link_id, "ann@example.com", first)
        clock.forward(31)
        second = code_sent(page, mailbox, link_id, "ann@example.com")
        refused = sign_in(page, link_id, "ann@example.com", second)
        fails(refused, 429, "rate_limited", "verification_code")
        assert 0 < int(refused.headers["Retry-After"]) <= 600
        clock.forward(int(refused.headers["Retry-After"]))
        started(sign_in(page, link_id, "ann@example.com", second))


def test_a_new_code_works_for_the_owner_after_a_stranger_locked_the_old_one_for_themselves(
        service: Service, mailbox: Mailbox, link_id: str, clock: Clock) -> None:
    with client_from(service, OWNER) as owner, client_from(service, STRANGER) as stranger:
        first = code_sent(stranger, mailbox, link_id, "ann@example.com")
        guess_wrong(stranger, link_id, "ann@example.com", first)
        clock.forward(31)
        second = code_sent(owner, mailbox, link_id, "ann@example.com")
        started(sign_in(owner, link_id, "ann@example.com", second))


# ---------------------------------------------------------------- codes sent


def test_the_eleventh_code_asked_from_one_ip_within_an_hour_is_refused(
        service: Service, mailbox: Mailbox, link_id: str) -> None:
    with client_from(service, "127.0.0.4") as page:
        for n in range(10):
            code_sent(page, mailbox, link_id, f"flood-{n}@example.com")
        since = mailbox.mark()
        refused = ask(page, link_id, "flood-10@example.com")
        fails(refused, 429, "rate_limited", "email")
        assert 0 < int(refused.headers["Retry-After"]) <= 3600
        assert mailbox.sent_to("flood-10@example.com", since) == []


def test_the_cap_on_codes_per_ip_leaves_other_ips_alone(service: Service, mailbox: Mailbox, link_id: str) -> None:
    with client_from(service, "127.0.0.4") as flooder, client_from(service, OWNER) as owner:
        for n in range(10):
            code_sent(flooder, mailbox, link_id, f"flood-{n}@example.com")
        fails(ask(flooder, link_id, "flood-10@example.com"), 429, "rate_limited", "email")
        assert code_sent(owner, mailbox, link_id, "ann@example.com")


def test_codes_may_be_asked_from_an_ip_again_an_hour_after_its_first(
        service: Service, mailbox: Mailbox, link_id: str, clock: Clock) -> None:
    with client_from(service, "127.0.0.4") as page:
        for n in range(10):
            code_sent(page, mailbox, link_id, f"flood-{n}@example.com")
        refused = ask(page, link_id, "flood-10@example.com")
        fails(refused, 429, "rate_limited", "email")
        clock.forward(int(refused.headers["Retry-After"]))
        assert code_sent(page, mailbox, link_id, "flood-10@example.com")


def test_the_101st_code_asked_for_one_payment_link_within_an_hour_is_refused(
        service: Service, mailbox: Mailbox, api: httpx.Client, link_id: str) -> None:
    # Ten addresses from each of ten IPs: no IP reaches its own cap of 10.
    for i in range(10):
        with client_from(service, f"127.0.1.{i + 1}") as page:
            for n in range(10):
                ok(ask(page, link_id, f"crowd-{i}-{n}@example.com"))
    with client_from(service, "127.0.2.1") as page:
        since = mailbox.mark()
        refused = ask(page, link_id, "crowd-last@example.com")
        fails(refused, 429, "rate_limited", "payment_link_id")
        assert 0 < int(refused.headers["Retry-After"]) <= 3600
        assert mailbox.sent_to("crowd-last@example.com", since) == []
        assert code_sent(page, mailbox, create_payment_link(api), "crowd-last@example.com")  # another link is not


def test_codes_to_one_address_stay_five_an_hour_from_any_number_of_ips(
        service: Service, mailbox: Mailbox, link_id: str, clock: Clock) -> None:
    for i in range(5):
        with client_from(service, f"127.0.3.{i + 1}") as page:
            code_sent(page, mailbox, link_id, "ann@example.com")
        clock.forward(31)
    with client_from(service, "127.0.3.9") as page:
        refused = ask(page, link_id, "ann@example.com")
        fails(refused, 429, "rate_limited", "email")
        assert 0 < int(refused.headers["Retry-After"]) <= 3600
