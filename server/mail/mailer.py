from __future__ import annotations

import logging
from email.message import Message
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit

import aiosmtplib

from server import clock
from server.ids import random_base62

log = logging.getLogger("paygate.mail")
SMTP_TIMEOUT_SECONDS = 10.0
DEFAULT_FROM = "paygate <no-reply@paygate.invalid>"


class MailError(Exception):
    """The message was not handed over; the caller may try again later."""


class Mailer(Protocol):
    async def send(self, message: Message) -> None: ...


def _stamp(message: Message, sender: str) -> Message:
    if "From" not in message:
        message["From"] = sender
    if "Date" not in message:
        message["Date"] = formatdate(localtime=False)
    if "Message-ID" not in message:
        message["Message-ID"] = make_msgid(domain="paygate.invalid")
    return message


class SmtpMailer:
    def __init__(self, smtp_url: str, sender: str = DEFAULT_FROM) -> None:
        parts = urlsplit(smtp_url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError("smtp_url: expected smtp://[user:password@]host[:port] or smtps://…")
        self._tls = parts.scheme == "smtps"
        self._host = parts.hostname
        self._port = parts.port or (465 if self._tls else 25)
        self._user = unquote(parts.username) if parts.username else None
        self._password = unquote(parts.password) if parts.password else None
        self._sender = sender

    async def send(self, message: Message) -> None:
        try:
            await aiosmtplib.send(_stamp(message, self._sender), hostname=self._host, port=self._port,
                                  username=self._user, password=self._password, use_tls=self._tls,
                                  start_tls=None if not self._tls else False, timeout=SMTP_TIMEOUT_SECONDS)
        except (aiosmtplib.SMTPException, OSError) as e:
            # The address is a customer's: log the failure, never the address.
            log.warning("e-mail not sent", extra={"error": e.__class__.__name__})
            raise MailError(e.__class__.__name__) from None


class FileMailer:
    """Each message becomes `<folder>/<time>-<random>.eml`, readable with any mail client."""

    def __init__(self, folder: Path, sender: str = DEFAULT_FROM) -> None:
        self.folder = folder
        self._sender = sender

    async def send(self, message: Message) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{clock.now()}-{random_base62(8)}.eml"
        path.write_bytes(bytes(_stamp(message, self._sender)))
        log.info("e-mail written", extra={"path": str(path)})


def mailer_for(smtp_url: str = "", mail_dir: Path = Path("var/mail"), sender: str = DEFAULT_FROM) -> Mailer:
    """SMTP when a URL is configured, else `.eml` files under `mail_dir`."""
    return SmtpMailer(smtp_url, sender) if smtp_url else FileMailer(mail_dir, sender)
