"""What paygate shows and sends to people who are not the merchant: the public checkout view of an intent, the
checkout page's framing header built from a merchant's return address, and the e-mailed one-time codes. Each case
comes from an outside review that showed it leaking or breaking."""

from __future__ import annotations

import asyncio
from email.message import EmailMessage, Message

import pytest
from paygate.v1 import payment_intents_pb2 as pb
from paygate.v1 import refunds_pb2

from gateway_http.checkout_page import frame_ancestors
from server import validate
from server.checkout.code_delivery import CodeMessage, EmailSender
from server.customers.identity import code_subject
from server.errors import DomainError
from server.payment_intents.convert import public_view


def _intent_with_a_refund() -> pb.PaymentIntent:
    intent = pb.PaymentIntent(id="pi_x")
    charge = intent.charges.add(id="ch_x")
    refund = charge.refunds.add(id="re_x", description="chargeback risk, customer flagged", refund_address="0xabc",
                                reason=refunds_pb2.REFUND_REASON_FRAUDULENT, failure_reason="node refused",
                                status=refunds_pb2.REFUND_STATUS_PENDING)
    refund.amount.asset_id, refund.amount.amount = "USD", "4"
    refund.metadata.update({"crm_note": "VIP complaint #4711"})
    intent.unexpected_funds.add(tx_hash="0xdead", aml_status=refunds_pb2.AML_STATUS_APPROVED)
    return intent


def test_the_public_view_shows_no_refund_description_metadata_address_or_reason() -> None:
    [refund] = public_view(_intent_with_a_refund()).charges[0].refunds
    assert (refund.description, refund.refund_address, refund.failure_reason) == ("", "", "")
    assert not refund.HasField("metadata") and refund.reason == refunds_pb2.REFUND_REASON_UNSPECIFIED


def test_the_public_view_keeps_each_refunds_amount_and_status() -> None:
    [refund] = public_view(_intent_with_a_refund()).charges[0].refunds
    assert (refund.amount.amount, refund.status) == ("4", refunds_pb2.REFUND_STATUS_PENDING)


def test_the_public_view_shows_no_aml_status_of_unexpected_funds() -> None:
    [funds] = public_view(_intent_with_a_refund()).unexpected_funds
    assert funds.tx_hash == "0xdead" and funds.aml_status == 0


@pytest.mark.parametrize("url", [
    "https://shop.example *;report-uri https:/x", "https://shop example/", "https://*.example/",
    "https://user:pass@shop.example/", "https://shop.example:99999/", "https://shop.example:x/",
    "https://shop.example'/", "https://shop.example;/",
])
def test_a_url_whose_host_is_no_name_nor_address_is_refused(url: str) -> None:
    with pytest.raises(DomainError) as refused:
        validate.url("return_url", url)
    assert "return_url" in str(refused.value)


@pytest.mark.parametrize("url", [
    "https://shop.example/thanks?a=1", "http://127.0.0.1:8080/x", "https://[2001:db8::1]:8443/",
    "https://bücher.example/", "https://shop-1.example.co.uk",
])
def test_an_ordinary_url_is_accepted(url: str) -> None:
    assert validate.url("return_url", url) == url


def test_the_framing_header_takes_the_parsed_origin_never_the_raw_text() -> None:
    assert frame_ancestors("https://Shop.Example:8443/a?b=c#d", livemode=True) == "'self' https://shop.example:8443"
    assert frame_ancestors("https://[2001:db8::1]/", livemode=True) == "'self' https://[2001:db8::1]"
    assert frame_ancestors("https://shop.example *;report-uri x", livemode=True) == "'self'"


@pytest.mark.parametrize("address", ["n1,victim@corp.example", "a;b@corp.example", "<a@b.example>",
                                     "a@b.example\r\nBcc: x@y.example", '"a"@b.example'])
def test_an_address_that_a_header_would_read_as_more_than_one_is_refused(address: str) -> None:
    with pytest.raises(DomainError) as refused:
        code_subject("email", address, field="email")
    assert "email" in str(refused.value)


def test_a_code_mail_for_a_merchant_named_across_two_lines_is_sent_with_a_one_line_subject() -> None:
    sent: list[EmailMessage] = []

    class Keep:
        async def send(self, mail: Message) -> None:
            assert isinstance(mail, EmailMessage)
            sent.append(mail)

    message = CodeMessage(to="ann@example.com", code="123456", merchant_name="Acme\r\nBcc: x@y.example", minutes=10)
    asyncio.run(EmailSender(Keep()).send(message))
    [mail] = sent
    assert mail["Subject"] == "123456 is your code for Acme Bcc: x@y.example"
    assert mail["Bcc"] is None and [a.addr_spec for a in mail["To"].addresses] == ["ann@example.com"]
