"""Outgoing e-mail behind one small seam (DESIGN §8), the one mailer of every mail paygate sends (invoices,
one-time codes): a `Mailer` sends an `email.message.Message` (an `EmailMessage`, or a plain `MIMEText` where many
are built at once: renewal sweeps), stamping From, Date and Message-ID, and raises `MailError` when it could not.

`SmtpMailer` speaks SMTP through aiosmtplib to `smtp://host:port` or `smtps://user:pass@host:port`; `FileMailer`
writes each message as a `.eml` file under a folder (development and `make run`, when no SMTP server is set).
`mailer_for()` picks one from configuration. Tests use a real SMTP server (aiosmtpd) on loopback.
"""

from __future__ import annotations

from server.mail.mailer import FAST_COMPAT32, FileMailer, Mailer, MailError, SmtpMailer, mailer_for

__all__ = ["FAST_COMPAT32", "FileMailer", "MailError", "Mailer", "SmtpMailer", "mailer_for"]
