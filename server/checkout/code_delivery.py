"""Delivering one-time codes: a `Sender` per channel, chosen by `senders(settings, clock)` from what the runtime built.

Both channels go out as mail through the one mailer (`server.mail`: SMTP at `smtp_url`, else .eml files under
`mail_dir`), which stamps From (`mail_from`), Date and Message-ID: e-mail codes to the shopper's address, phone codes
as a short plain-text mail to an e-mail-to-SMS gateway (`<E.164 digits>@<sms_email_gateway>`). No SMS provider's API
is wired; without `sms_email_gateway` there is no phone sender and phone codes are refused."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol

from server.clock import Clock
from server.config import Settings
from server.errors import Unavailable
from server.mail import Mailer, MailError, mailer_for

log = logging.getLogger("paygate.mail")


@dataclass(frozen=True)
class CodeMessage:
    to: str
    code: str
    merchant_name: str
    minutes: int


class Sender(Protocol):
    channel: str

    async def send(self, message: CodeMessage) -> None: ...


def _mail(to: str, subject: str, text: str) -> EmailMessage:
    mail = EmailMessage()
    mail["To"] = to
    # A merchant's name may hold a line break (the operator names merchants): a header takes none, so any run of
    # whitespace is one space.
    mail["Subject"] = " ".join(subject.split())
    mail.set_content(text)
    return mail


async def _deliver(mailer: Mailer, mail: EmailMessage, field: str) -> None:
    try:
        await mailer.send(mail)
    except MailError as e:
        # The address is the shopper's: log the failure, not the address or the code.
        log.warning("one-time code mail not sent", extra={"channel": field, "error": str(e)})
        raise Unavailable(f"{field}: the code could not be sent now; try again in a minute") from None


class EmailSender:
    channel = "email"

    def __init__(self, mailer: Mailer) -> None:
        self._mailer = mailer

    async def send(self, message: CodeMessage) -> None:
        text = (f"Your one-time code for paying {message.merchant_name} is:\n\n    {message.code}\n\n"
                f"It works for {message.minutes} minutes. If you did not ask for it, ignore this e-mail.\n")
        mail = _mail(message.to, f"{message.code} is your code for {message.merchant_name}", text)
        await _deliver(self._mailer, mail, "email")


class SmsGatewaySender:
    """Phone codes as mail to an e-mail-to-SMS gateway: `+4712345678` → `4712345678@<gateway>`, the code in a
    one-line plain-text body (the gateway turns the body into the text message)."""

    channel = "phone"

    def __init__(self, gateway: str, mailer: Mailer) -> None:
        self._gateway = gateway
        self._mailer = mailer

    def address(self, phone: str) -> str:
        return f"{phone.removeprefix('+')}@{self._gateway}"

    async def send(self, message: CodeMessage) -> None:
        text = f"{message.code} is your code for {message.merchant_name}; it works for {message.minutes} min.\n"
        mail = _mail(self.address(message.to), f"{message.merchant_name} code", text)
        await _deliver(self._mailer, mail, "phone")


def senders(settings: Settings, clock: Clock) -> Mapping[str, Sender]:
    """The senders this deployment has, by channel: e-mail always; phone only with `sms_email_gateway`. `clock`
    names the .eml files of development's file mailer."""
    via = mailer_for(clock, settings.smtp_url, Path(settings.mail_dir), settings.mail_from)
    out: dict[str, Sender] = {"email": EmailSender(via)}
    if settings.sms_email_gateway:
        out["phone"] = SmsGatewaySender(settings.sms_email_gateway, via)
    return out
