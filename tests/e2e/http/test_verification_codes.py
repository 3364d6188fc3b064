"""One-time codes the way a shopper gets them: asked for through `POST /checkout/verification_codes` on a payment
link, read from the e-mail a real SMTP server (aiosmtpd) received, then given to identity resolution. Six digits,
valid 10 minutes, 5 wrong guesses per address from one client (across its codes), a new code 30 s after the last and
at most 5 an hour per address. (Strangers guessing from other IPs, and the caps per IP and per payment link:
test_code_abuse.py.) Phone codes are the same flow with `phone` instead of `email`, delivered
as mail to the e-mail-to-SMS gateway (PAYGATE_SMS_EMAIL_GATEWAY) and read from the same SMTP server.

This module's paygate runs on tests/clock.py's clock, so that a test moves time forward instead of waiting.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import fails, ok
from tests.e2e.http.test_customer_identity import create_payment_link, other_code, resolve
from tests.harness import TLS, Service, start, stop
from tests.mail import SMS_GATEWAY, Mailbox, sms_address


class Clock:
    """The service's time: the wall clock plus `offset` seconds (only ever moved forward)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        path.write_text("0")

    def forward(self, seconds: int) -> None:
        self.offset += seconds
        self.path.write_text(str(self.offset))

    def now(self) -> int:
        return int(time.time()) + self.offset


@pytest.fixture(scope="module")
def clock(tmp_path_factory: pytest.TempPathFactory) -> Clock:
    return Clock(tmp_path_factory.mktemp("clock") / "offset")


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, mailbox: Mailbox,
            clock: Clock) -> Iterator[Service]:
    """This module's own paygate (on the moveable clock); `merchant`, `api` and `anonymous` use it."""
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"codes-{request.param}")),
                # Every test here asks from 127.0.0.1: the cap per client IP is test_code_abuse.py's to test.
                extra_env={"PAYGATE_SMTP_URL": mailbox.url, "PAYGATE_SMS_EMAIL_GATEWAY": SMS_GATEWAY,
                           "PAYGATE_CODE_SENDS_PER_IP_PER_HOUR": "1000000"},
                clock_file=clock.path)
    yield svc
    stop(svc)


@pytest.fixture(scope="module")
def service_without_sms(service: Service, tmp_path_factory: pytest.TempPathFactory,
                        mailbox: Mailbox) -> Iterator[Service]:
    """A paygate on the same database kind with SMTP but no e-mail-to-SMS gateway: only e-mail codes."""
    svc = start(service.kind, Path(tmp_path_factory.mktemp(f"codes-no-sms-{service.kind}")),
                extra_env={"PAYGATE_SMTP_URL": mailbox.url})
    yield svc
    stop(svc)


@pytest.fixture
def link_id(api: httpx.Client) -> str:
    return create_payment_link(api)


def ask(anonymous: httpx.Client, link_id: str, email: str) -> httpx.Response:
    return anonymous.post("/checkout/verification_codes", json={"payment_link_id": link_id, "email": email})


def ask_phone(anonymous: httpx.Client, link_id: str, phone: str) -> httpx.Response:
    return anonymous.post("/checkout/verification_codes", json={"payment_link_id": link_id, "phone": phone})


def phone_code_sent(anonymous: httpx.Client, mailbox: Mailbox, link_id: str, phone: str) -> str:
    since = mailbox.mark()
    ok(ask_phone(anonymous, link_id, phone))
    return mailbox.code_for(sms_address(phone), since)


def code_sent(anonymous: httpx.Client, mailbox: Mailbox, link_id: str, email: str) -> str:
    since = mailbox.mark()
    ok(ask(anonymous, link_id, email))
    return mailbox.code_for(email.lower(), since)


def test_a_code_is_six_digits_e_mailed_with_the_merchants_name(
        anonymous: httpx.Client, mailbox: Mailbox, link_id: str) -> None:
    since = mailbox.mark()
    ok(ask(anonymous, link_id, "ann@example.com"))
    code = mailbox.code_for("ann@example.com", since)
    mail = next(m for m in reversed(mailbox.messages[since:]) if m["To"] == "ann@example.com")
    assert re.fullmatch(r"[0-9]{6}", code)
    assert mail["Subject"] == f"{code} is your code for Test merchant"


def test_a_code_expires_ten_minutes_after_it_is_sent(
        anonymous: httpx.Client, link_id: str, clock: Clock) -> None:
    sent = ok(ask(anonymous, link_id, "ann@example.com"))
    assert abs(sent["expires_at"] - (clock.now() + 600)) <= 5


def test_a_code_works_until_its_tenth_minute(
        anonymous: httpx.Client, api: httpx.Client, mailbox: Mailbox, link_id: str, clock: Clock) -> None:
    code = code_sent(anonymous, mailbox, link_id, "ann@example.com")
    clock.forward(600 - 20)
    assert ok(resolve(api, email="ann@example.com", verification_code=code))["email"] == "ann@example.com"


def test_a_code_is_refused_after_ten_minutes(
        anonymous: httpx.Client, api: httpx.Client, mailbox: Mailbox, link_id: str, clock: Clock) -> None:
    code = code_sent(anonymous, mailbox, link_id, "ann@example.com")
    clock.forward(600 + 1)
    fails(resolve(api, email="ann@example.com", verification_code=code), 400, "verification_code_invalid",
          "verification_code")
    assert ok(api.get("/v1/customers"))["total"] == 0


def test_another_code_is_sent_only_thirty_seconds_after_the_last(
        anonymous: httpx.Client, api: httpx.Client, mailbox: Mailbox, link_id: str, clock: Clock) -> None:
    code_sent(anonymous, mailbox, link_id, "ann@example.com")
    too_soon = ask(anonymous, link_id, "ann@example.com")
    fails(too_soon, 429, "rate_limited", "email")
    assert 0 < int(too_soon.headers["Retry-After"]) <= 30
    clock.forward(30 + 1)
    newer = code_sent(anonymous, mailbox, link_id, "ann@example.com")
    assert ok(resolve(api, email="ann@example.com", verification_code=newer))["customer_id"].startswith("cus_")


def test_wrong_codes_are_limited_per_email_across_codes(
        anonymous: httpx.Client, api: httpx.Client, mailbox: Mailbox, link_id: str, clock: Clock) -> None:
    first = code_sent(anonymous, mailbox, link_id, "ann@example.com")
    for _ in range(5):
        fails(resolve(api, email="ann@example.com", verification_code=other_code(first)), 400,
              "verification_code_invalid", "verification_code")
    clock.forward(30 + 1)
    second = code_sent(anonymous, mailbox, link_id, "ann@example.com")  # a new code does not buy five more guesses
    refused = resolve(api, email="ann@example.com", verification_code=second)
    fails(refused, 429, "rate_limited", "verification_code")
    assert int(refused.headers["Retry-After"]) > 0
    assert ok(api.get("/v1/customers"))["total"] == 0


def test_the_limit_on_wrong_codes_is_per_email(
        anonymous: httpx.Client, api: httpx.Client, mailbox: Mailbox, link_id: str) -> None:
    first = code_sent(anonymous, mailbox, link_id, "ann@example.com")
    for _ in range(5):
        fails(resolve(api, email="ann@example.com", verification_code=other_code(first)), 400,
              "verification_code_invalid", "verification_code")
    code = code_sent(anonymous, mailbox, link_id, "bob@example.com")
    ok(resolve(api, email="bob@example.com", verification_code=code))


def test_codes_sent_to_one_email_are_limited_per_hour(
        anonymous: httpx.Client, mailbox: Mailbox, link_id: str, clock: Clock) -> None:
    for _ in range(5):
        code_sent(anonymous, mailbox, link_id, "ann@example.com")
        clock.forward(30 + 1)
    since = mailbox.mark()
    refused = ask(anonymous, link_id, "Ann@Example.com")
    fails(refused, 429, "rate_limited", "email")
    assert int(refused.headers["Retry-After"]) > 0
    assert code_sent(anonymous, mailbox, link_id, "bob@example.com")  # another address is not limited
    assert all(m["To"] != "ann@example.com" for m in mailbox.messages[since:])


def test_codes_may_be_sent_again_an_hour_after_the_first(
        anonymous: httpx.Client, mailbox: Mailbox, link_id: str, clock: Clock) -> None:
    for _ in range(5):
        code_sent(anonymous, mailbox, link_id, "ann@example.com")
        clock.forward(30 + 1)
    clock.forward(3600)
    assert code_sent(anonymous, mailbox, link_id, "ann@example.com")


# ---------------------------------------------------------------- phone codes (e-mail-to-SMS gateway)


def test_a_phone_code_is_mailed_to_the_sms_gateway_as_one_short_line(
        anonymous: httpx.Client, mailbox: Mailbox, link_id: str) -> None:
    since = mailbox.mark()
    sent = ok(ask_phone(anonymous, link_id, "+4712345678"))
    code = mailbox.code_for("4712345678@sms.example.net", since)
    [mail] = mailbox.sent_to("4712345678@sms.example.net", since)
    assert re.fullmatch(r"[0-9]{6}", code)
    assert mail.get_content_type() == "text/plain"
    assert mail.get_payload().strip() == f"{code} is your code for Test merchant; it works for 10 min."
    assert sent["retry_after"] == 30 and sent["expires_at"] > 0


def test_a_phone_code_signs_in_with_the_same_number(
        anonymous: httpx.Client, api: httpx.Client, mailbox: Mailbox, link_id: str) -> None:
    code = phone_code_sent(anonymous, mailbox, link_id, "+4712345678")
    resolved = ok(resolve(api, phone="+4712345678", verification_code=code))
    assert resolved["customer_id"].startswith("cus_") and resolved["phone"] == "+4712345678"


def test_the_checkout_page_call_starts_paying_with_a_phone_code(
        anonymous: httpx.Client, api: httpx.Client, mailbox: Mailbox, link_id: str) -> None:
    code = phone_code_sent(anonymous, mailbox, link_id, "+4712345678")
    started = ok(anonymous.post("/checkout/sessions", json={
        "payment_link_id": link_id, "phone": "+4712345678", "verification_code": code}))
    assert started["payment_intent_id"].startswith("pi_") and started["client_secret"]
    assert ok(api.get(f"/v1/customers/{started['customer_id']}"))["phone"] == "+4712345678"


def test_a_phone_code_is_not_an_email_code(
        anonymous: httpx.Client, api: httpx.Client, mailbox: Mailbox, link_id: str) -> None:
    code = phone_code_sent(anonymous, mailbox, link_id, "+4712345678")
    fails(resolve(api, email="4712345678@sms.example.net", verification_code=code), 400,
          "verification_code_invalid", "verification_code")
    assert ok(api.get("/v1/customers"))["total"] == 0


def test_another_phone_code_is_sent_only_thirty_seconds_after_the_last(
        anonymous: httpx.Client, mailbox: Mailbox, link_id: str, clock: Clock) -> None:
    phone_code_sent(anonymous, mailbox, link_id, "+4712345678")
    too_soon = ask_phone(anonymous, link_id, "+4712345678")
    fails(too_soon, 429, "rate_limited", "phone")
    assert 0 < int(too_soon.headers["Retry-After"]) <= 30
    clock.forward(30 + 1)
    assert phone_code_sent(anonymous, mailbox, link_id, "+4712345678")


def test_codes_sent_to_one_phone_are_limited_per_hour(
        anonymous: httpx.Client, mailbox: Mailbox, link_id: str, clock: Clock) -> None:
    for _ in range(5):
        phone_code_sent(anonymous, mailbox, link_id, "+4712345678")
        clock.forward(30 + 1)
    since = mailbox.mark()
    refused = ask_phone(anonymous, link_id, "+4712345678")
    fails(refused, 429, "rate_limited", "phone")
    assert int(refused.headers["Retry-After"]) > 0
    assert phone_code_sent(anonymous, mailbox, link_id, "+4712345679")  # another number is not limited
    assert mailbox.sent_to(sms_address("+4712345678"), since) == []


def test_wrong_codes_are_limited_per_phone_across_codes(
        anonymous: httpx.Client, api: httpx.Client, mailbox: Mailbox, link_id: str, clock: Clock) -> None:
    first = phone_code_sent(anonymous, mailbox, link_id, "+4712345678")
    for _ in range(5):
        fails(resolve(api, phone="+4712345678", verification_code=other_code(first)), 400,
              "verification_code_invalid", "verification_code")
    clock.forward(30 + 1)
    second = phone_code_sent(anonymous, mailbox, link_id, "+4712345678")
    fails(resolve(api, phone="+4712345678", verification_code=second), 429, "rate_limited", "verification_code")
    assert ok(api.get("/v1/customers"))["total"] == 0


def test_email_and_phone_together_are_refused(anonymous: httpx.Client, mailbox: Mailbox, link_id: str) -> None:
    since = mailbox.mark()
    both = anonymous.post("/checkout/verification_codes", json={
        "payment_link_id": link_id, "email": "ann@example.com", "phone": "+4712345678"})
    fails(both, 400, "parameter_invalid", "phone")
    assert mailbox.mark() == since


def test_neither_email_nor_phone_is_refused(anonymous: httpx.Client, mailbox: Mailbox, link_id: str) -> None:
    since = mailbox.mark()
    fails(anonymous.post("/checkout/verification_codes", json={"payment_link_id": link_id}), 400,
          "parameter_invalid", "email")
    assert mailbox.mark() == since


@pytest.mark.parametrize("phone", [
    "+\u0664\u0667\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668",  # Arabic-Indic digits
    "+\uff14\uff17\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18",  # full-width digits
    "+47\u00b2345678",  # a superscript two
])
def test_a_phone_with_digits_that_are_not_ascii_is_refused(
        anonymous: httpx.Client, mailbox: Mailbox, link_id: str, phone: str) -> None:
    since = mailbox.mark()
    fails(ask_phone(anonymous, link_id, phone), 400, "parameter_invalid", "phone")
    assert mailbox.mark() == since


@pytest.mark.parametrize("phone", ["4712345678", "+47 123 45 678", "+0712345678", "+47123", "+4712345678901234",
                                   "+4712345678\n", "+47-1234-5678"])
def test_a_phone_that_is_not_e164_is_refused(
        anonymous: httpx.Client, mailbox: Mailbox, link_id: str, phone: str) -> None:
    since = mailbox.mark()
    fails(ask_phone(anonymous, link_id, phone), 400, "parameter_invalid", "phone")
    assert mailbox.mark() == since


def test_phone_codes_are_refused_when_no_sms_gateway_is_configured(
        service_without_sms: Service, mailbox: Mailbox) -> None:
    merchant = service_without_sms.create_merchant()
    with httpx.Client(base_url=service_without_sms.http_url, auth=(merchant["test"]["secret_key"], ""),
                      timeout=30, verify=TLS) as shop, \
            httpx.Client(base_url=service_without_sms.http_url, timeout=30, verify=TLS) as page:
        link_id = create_payment_link(shop)
        since = mailbox.mark()
        refused = ask_phone(page, link_id, "+4712345678")
        fails(refused, 400, "parameter_invalid", "phone")
        assert "phone codes are not enabled on this gateway" in refused.json()["msg"]
        assert mailbox.mark() == since
        # Nothing was stored for the number; e-mail codes work as before on this gateway.
        fails(resolve(shop, phone="+4712345678", verification_code="123456"), 400, "verification_code_invalid",
              "verification_code")
        assert ok(ask(page, link_id, "ann@example.com"))["retry_after"] == 30
