"""Delivering one-time codes: a `Sender` per channel. Only e-mail is wired (SMTP with aiosmtplib, or .eml files
under `mail_dir` when no SMTP server is configured); a phone channel would be another `Sender` for "phone"."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit

import aiosmtplib

from server import clock
from server.config import Settings
from server.errors import Unavailable
from server.ids import random_base62

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


def _email(settings: Settings, message: CodeMessage) -> EmailMessage:
    mail = EmailMessage()
    mail["From"] = settings.mail_from
    mail["To"] = message.to
    mail["Subject"] = f"{message.code} is your code for {message.merchant_name}"
    mail["Date"] = formatdate(localtime=False)
    mail["Message-ID"] = make_msgid(domain="paygate.invalid")
    mail.set_content(f"Your one-time code for paying {message.merchant_name} is:\n\n    {message.code}\n\n"
                     f"It works for {message.minutes} minutes. If you did not ask for it, ignore this e-mail.\n")
    return mail


class SmtpSender:
    channel = "email"

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        parts = urlsplit(settings.smtp_url)
        self._tls = parts.scheme == "smtps"
        self._host = parts.hostname or "localhost"
        self._port = parts.port or (465 if self._tls else 25)
        self._user = unquote(parts.username) if parts.username else None
        self._password = unquote(parts.password) if parts.password else None

    async def send(self, message: CodeMessage) -> None:
        try:
            await aiosmtplib.send(_email(self._settings, message), hostname=self._host, port=self._port,
                                  username=self._user, password=self._password, use_tls=self._tls,
                                  start_tls=None if not self._tls else False, timeout=SMTP_TIMEOUT_SECONDS)
        except (aiosmtplib.SMTPException, OSError) as e:
            # The address is the shopper's: log the failure, not the address or the code.
            log.warning("one-time code e-mail not sent", extra={"error": e.__class__.__name__})
            raise Unavailable("email: the code could not be sent now; try again in a minute") from None


class FileSender:
    """Development: each message becomes `<mail_dir>/<time>-<random>.eml`, readable with any mail client."""

    channel = "email"

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._dir: Path = settings.mail_dir

    async def send(self, message: CodeMessage) -> None:
        self._dir.mkdir(parents=True, exist_ok=True)
        path = self._dir / f"{clock.now()}-{random_base62(8)}.eml"
        path.write_bytes(bytes(_email(self._settings, message)))
        log.info("one-time code e-mail written", extra={"path": str(path)})


def email_sender(settings: Settings) -> Sender:
    return SmtpSender(settings) if settings.smtp_url else FileSender(settings)
