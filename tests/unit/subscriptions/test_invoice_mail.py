"""The invoice e-mail (built with the legacy, fast policy): someone else's text never adds a header."""

from __future__ import annotations

import email
from decimal import Decimal
from email.header import decode_header, make_header
from email.mime.text import MIMEText
from email.policy import compat32

from server.invoices.models import Invoice
from server.mail import FAST_COMPAT32
from server.mail.mailer import _stamp
from server.subscriptions.collect import invoice_mail


def invoice() -> Invoice:
    return Invoice(id="inv_1", merchant_id="mch_1", livemode=False, subscription_id="sub_1", amount=Decimal("9.50"),
                   currency="USD", status="open", billing_reason="subscription_cycle", cycle_number=2,
                   payment_url="https://checkout.test/pay/pi_1?client_secret=s", created_at=0, updated_at=0)


def test_a_line_break_in_the_merchant_name_adds_no_header() -> None:
    raw = bytes(_stamp(invoice_mail(invoice(), "Shop\r\nBcc: thief@example.com", "ann@example.com"), "p <p@x.y>"))
    parsed = email.message_from_bytes(raw)
    assert parsed["Bcc"] is None and parsed["To"] == "ann@example.com"
    assert parsed["Subject"] == "Shop Bcc: thief@example.com: invoice inv_1 for $9.50"


def test_a_non_ascii_merchant_name_is_an_encoded_word_and_the_body_decodes() -> None:
    parsed = email.message_from_bytes(bytes(invoice_mail(invoice(), "Café Ünï", "ann@example.com")))
    subject = str(make_header(decode_header(parsed["Subject"])))
    assert subject == "Café Ünï: invoice inv_1 for $9.50"
    body = parsed.get_payload(decode=True).decode()
    assert "Café Ünï has a new invoice" in body and "https://checkout.test/pay/pi_1?client_secret=s" in body


def test_the_invoice_mail_is_written_exactly_as_the_compat32_policy_writes_it() -> None:
    names = ["Shop", "Café Ünï", "A merchant with a name long enough that the subject must be folded onto two lines"]
    for name in names:
        mail = _stamp(invoice_mail(invoice(), name, "ann@example.com"), "p <p@x.y>")
        assert mail.as_bytes() == mail.as_bytes(policy=compat32) and mail.as_string() == mail.as_string(
            policy=compat32)


def test_an_ascii_invoice_mail_is_the_mimetext_the_legacy_policy_makes() -> None:
    for name in ["Shop", "Beans & Co", "A merchant with a name long enough that the subject must be folded onto two"]:
        mail = invoice_mail(invoice(), name, "ann@example.com")
        body = mail.get_payload()
        assert isinstance(body, str) and body.isascii()
        reference = MIMEText(body, "plain", "us-ascii", policy=FAST_COMPAT32)
        reference["To"], reference["Subject"] = mail["To"], mail["Subject"]
        assert mail.items() == reference.items()
        for m in (mail, reference):
            _stamp(m, "p <p@x.y>")
            del m["Date"], m["Message-ID"]
            m["Date"], m["Message-ID"] = "Fri, 27 Nov 2026 10:00:00 -0000", "<1@paygate.invalid>"
        assert bytes(mail) == bytes(reference) and mail.as_string() == reference.as_string()
        decoded = email.message_from_bytes(bytes(mail)).get_payload(decode=True)
        assert isinstance(decoded, bytes) and decoded.decode() == body
