"""Delivering one-time codes: a `Sender` per channel, chosen by `senders(settings, clock)` from what the runtime built.

Both channels go out as mail, through SMTP with aiosmtplib (`smtp_url`) or as .eml files under `mail_dir` when no SMTP
server is configured: e-mail codes to the shopper's address, phone codes as a short plain-text mail to an
e-mail-to-SMS gateway (`<E.164 digits>@<sms_email_gateway>`). No SMS provider's API is wired; without
`sms_email_gateway` there is no phone sender and phone codes are refused."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit

import aiosmtplib

from server.clock import Clock
from server.config import Settings
from server.errors import Unavailable
from server.mail import FileMailer

log = logging.getLogger("paygate.mail")
SMTP_TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class CodeMessage:
    to: str
    code: str
    merchant_name: str
    minutes: int


class Sender(Protocol):
    channel: str

    async def send(self, message: CodeMessage) -> None: ...


class Transport(Protocol):
    async def deliver(self, mail: EmailMessage) -> None: ...


def _stamped(settings: Settings, to: str, subject: str, text: str) -> EmailMessage:
    mail = EmailMessage()
    mail["From"] = settings.mail_from
    mail["To"] = to
    # A merchant's name may hold a line break (the operator names merchants): a header takes none, so any run of
    # whitespace is one space.
    mail["Subject"] = " ".join(subject.split())
    mail["Date"] = formatdate(localtime=False)
    mail["Message-ID"] = make_msgid(domain="paygate.invalid")
    mail.set_content(text)
    return mail


class SmtpTransport:
    def __init__(self, settings: Settings) -> None:
        parts = urlsplit(settings.smtp_url)
        self._tls = parts.scheme == "smtps"
        self._host = parts.hostname or "localhost"
        self._port = parts.port or (465 if self._tls else 25)
        self._user = unquote(parts.username) if parts.username else None
        self._password = unquote(parts.password) if parts.password else None

    async def deliver(self, mail: EmailMessage) -> None:
        await aiosmtplib.send(mail, hostname=self._host, port=self._port, username=self._user,
                              password=self._password, use_tls=self._tls, start_tls=None if not self._tls else False,
                              timeout=SMTP_TIMEOUT_SECONDS)


class FileTransport:
    """Development: each message becomes `<mail_dir>/<time>-<random>.eml`, readable with any mail client, written
    by the mail module's `FileMailer` (owner-only files, server/mail/mailer.py)."""

    def __init__(self, settings: Settings, clock: Clock) -> None:
        self._mailer = FileMailer(Path(settings.mail_dir), settings.mail_from, clock=clock)

    async def deliver(self, mail: EmailMessage) -> None:
        await self._mailer.send(mail)


def transport(settings: Settings, clock: Clock) -> Transport:
    return SmtpTransport(settings) if settings.smtp_url else FileTransport(settings, clock)


async def _deliver(transport: Transport, mail: EmailMessage, field: str) -> None:
    try:
        await transport.deliver(mail)
    except (aiosmtplib.SMTPException, OSError) as e:
        # The address is the shopper's: log the failure, not the address or the code.
        log.warning("one-time code mail not sent", extra={"channel": field, "error": e.__class__.__name__})
        raise Unavailable(f"{field}: the code could not be sent now; try again in a minute") from None


class EmailSender:
    channel = "email"

    def __init__(self, settings: Settings, transport: Transport) -> None:
        self._settings = settings
        self._transport = transport

    async def send(self, message: CodeMessage) -> None:
        text = (f"Your one-time code for paying {message.merchant_name} is:\n\n    {message.code}\n\n"
                f"It works for {message.minutes} minutes. If you did not ask for it, ignore this e-mail.\n")
        mail = _stamped(self._settings, message.to, f"{message.code} is your code for {message.merchant_name}", text)
        await _deliver(self._transport, mail, "email")


class SmsGatewaySender:
    """Phone codes as mail to an e-mail-to-SMS gateway: `+4712345678` → `4712345678@<sms_email_gateway>`, the code
    in a one-line plain-text body (the gateway turns the body into the text message)."""

    channel = "phone"

    def __init__(self, settings: Settings, transport: Transport) -> None:
        self._settings = settings
        self._transport = transport

    def address(self, phone: str) -> str:
        return f"{phone.removeprefix('+')}@{self._settings.sms_email_gateway}"

    async def send(self, message: CodeMessage) -> None:
        text = f"{message.code} is your code for {message.merchant_name}; it works for {message.minutes} min.\n"
        mail = _stamped(self._settings, self.address(message.to), f"{message.merchant_name} code", text)
        await _deliver(self._transport, mail, "phone")


def senders(settings: Settings, clock: Clock) -> Mapping[str, Sender]:
    """The senders this deployment has, by channel: e-mail always; phone only with `sms_email_gateway`. `clock`
    names the .eml files of development's file transport."""
    via = transport(settings, clock)
    out: dict[str, Sender] = {"email": EmailSender(settings, via)}
    if settings.sms_email_gateway:
        out["phone"] = SmsGatewaySender(settings, via)
    return out
