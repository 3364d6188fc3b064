from __future__ import annotations

import asyncio
import logging
import os
import stat
from collections.abc import Sequence
from email.message import Message
from email.policy import Compat32
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit

import aiosmtplib

from server.clock import Clock
from server.ids import random_base62

log = logging.getLogger("paygate.mail")
SMTP_TIMEOUT_SECONDS = 10.0
DEFAULT_FROM = "paygate <no-reply@paygate.invalid>"


class _Compat32Fast(Compat32):
    """The legacy `compat32` policy, less its cost for the usual header: plain ASCII on one short line is written
    as it is (which is what `compat32` writes for it too, after building an `email.header.Header` for each one);
    anything else (long, non-ASCII, a Header object, a line break) is folded and encoded by `compat32` itself."""

    def _plain(self, name: str, value: object) -> bool:
        return (isinstance(value, str) and value.isascii() and "\r" not in value and "\n" not in value
                and value == value.strip() and len(name) + 2 + len(value) <= (self.max_line_length or 78))

    def fold(self, name: str, value: str) -> str:
        return f"{name}: {value}{self.linesep}" if self._plain(name, value) else super().fold(name, value)

    def fold_binary(self, name: str, value: str) -> bytes:
        if self._plain(name, value):
            return f"{name}: {value}{self.linesep}".encode("ascii")
        return super().fold_binary(name, value)


# For messages built by the thousand (a renewal sweep's invoices): `MIMEText(…, policy=FAST_COMPAT32)`.
FAST_COMPAT32 = _Compat32Fast()


class MailError(Exception):
    """The message was not handed over; the caller may try again later."""


class Mailer(Protocol):
    """Sends one message, stamped with the mailer's From (unless it has one), a Date and a Message-ID; raises
    `MailError` when it was not handed over, whichever mailer it is (callers catch that one error)."""

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
    """Each message becomes `<folder>/<time>-<random>.eml`, readable with any mail client. `<time>` is on the
    runtime's clock: the files of a process whose clock a test moved sort in that process's time."""

    def __init__(self, folder: Path, sender: str = DEFAULT_FROM, *, clock: Clock) -> None:
        self.folder = folder
        self._sender = sender
        self._clock = clock
        self._private = False  # the folder was checked to be the owner's only (once per process)

    async def send(self, message: Message) -> None:
        try:
            path = self._write(bytes(_stamp(message, self._sender)))
        except OSError as e:  # a full disk or a folder that cannot be made: not handed over, as with SMTP
            log.warning("e-mail not written", extra={"error": e.__class__.__name__})
            raise MailError(e.__class__.__name__) from None
        log.info("e-mail written", extra={"path": path})

    async def send_many(self, messages: Sequence[Message]) -> int:
        """Many messages in order (a renewal sweep's batch), their files made on a worker thread: making a file
        waits on the file system's journal, for milliseconds when the disk is busy, and the event loop has other
        work meanwhile. The number written: the first that cannot be written ends the batch (logged), and it and
        those after it are left to their senders' next try, like a message an SMTP server refused."""
        raws = [bytes(_stamp(m, self._sender)) for m in messages]
        paths: list[str] = []
        try:
            await asyncio.to_thread(self._write_all, raws, paths)
        except OSError as e:
            log.warning("e-mail not written", extra={"error": e.__class__.__name__, "written": len(paths)})
        for path in paths:
            log.info("e-mail written", extra={"path": path})
        return len(paths)

    def _write_all(self, raws: list[bytes], paths: list[str]) -> None:
        for raw in raws:
            paths.append(self._write(raw))

    def _write(self, raw: bytes) -> str:
        """A new file (never over another one), with plain system calls: a renewal sweep writes thousands. Files
        are 0600 and the folder 0700: they hold one-time codes and pay links with client secrets (DESIGN §16)."""
        folder = str(self.folder)
        if not self._private:
            self._make_private()
        while True:
            path = os.path.join(folder, f"{self._clock.now()}-{random_base62(8)}.eml")
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileNotFoundError:  # removed since: made again
                self._make_private()
                continue
            except FileExistsError:  # that name is taken: draw another
                continue
            try:
                view = memoryview(raw)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
            return path

    def _make_private(self) -> None:
        """The folder, made 0700 (its parents as the umask says), or closed to others if it was there already."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if stat.S_IMODE(self.folder.stat().st_mode) & 0o077:
            os.chmod(self.folder, 0o700)
        self._private = True


def mailer_for(clock: Clock, smtp_url: str = "", mail_dir: Path = Path("var/mail"),
               sender: str = DEFAULT_FROM) -> Mailer:
    """SMTP when a URL is configured, else `.eml` files under `mail_dir` (named on `clock`)."""
    return SmtpMailer(smtp_url, sender) if smtp_url else FileMailer(mail_dir, sender, clock=clock)
