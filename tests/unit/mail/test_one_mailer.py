"""Checkout's one-time codes go out through the one mailer (`server.mail`): what `senders()` builds from the
settings writes its mail as `FileMailer` .eml files, stamped with `mail_from`, and a mail it cannot hand over is
refused naming the channel's field, whichever mailer failed."""

from __future__ import annotations

import asyncio
import email
from email.message import Message
from pathlib import Path

import pytest

from server.checkout.code_delivery import CodeMessage, EmailSender, SmsGatewaySender, senders
from server.clock import SystemClock
from server.config import load_settings
from server.errors import Unavailable
from server.mail import FileMailer, MailError, SmtpMailer
from tests.harness import free_port
from tests.mail import smtp_server

CODE = CodeMessage(to="ann@example.com", code="123456", merchant_name="Shop", minutes=10)


def written(folder: Path) -> list[Message]:
    return [email.message_from_bytes(p.read_bytes()) for p in sorted(folder.glob("*.eml"))]


def test_without_smtp_the_code_mails_are_file_mailer_files_stamped_with_mail_from(tmp_path: Path) -> None:
    settings = load_settings({"PAYGATE_MAIL_DIR": str(tmp_path / "mail"), "PAYGATE_MAIL_FROM": "shop <codes@s.example>",
                              "PAYGATE_SMS_EMAIL_GATEWAY": "sms.example.net"})
    by_channel = senders(settings, SystemClock())
    asyncio.run(by_channel["email"].send(CODE))
    [mail] = written(tmp_path / "mail")
    assert (mail["From"], mail["To"], mail["Subject"]) == ("shop <codes@s.example>", "ann@example.com",
                                                            "123456 is your code for Shop")
    assert mail["Date"] and mail["Message-ID"].endswith("@paygate.invalid>")
    assert mail.get_payload() == ("Your one-time code for paying Shop is:\n\n    123456\n\n"
                                  "It works for 10 minutes. If you did not ask for it, ignore this e-mail.\n")

    asyncio.run(by_channel["phone"].send(CodeMessage(to="+4712345678", code="654321", merchant_name="Shop",
                                                     minutes=10)))
    [phone] = [m for m in written(tmp_path / "mail") if m["To"] == "4712345678@sms.example.net"]
    assert (phone["From"], phone["Subject"]) == ("shop <codes@s.example>", "Shop code")
    assert phone.get_payload() == "654321 is your code for Shop; it works for 10 min.\n"


def test_with_smtp_the_code_mails_go_to_the_smtp_server_stamped_the_same() -> None:
    with smtp_server() as box:
        settings = load_settings({"PAYGATE_SMTP_URL": box.url, "PAYGATE_MAIL_FROM": "shop <codes@s.example>",
                                  "PAYGATE_SMS_EMAIL_GATEWAY": "sms.example.net"})
        by_channel = senders(settings, SystemClock())
        asyncio.run(by_channel["email"].send(CODE))
        asyncio.run(by_channel["phone"].send(CodeMessage(to="+4712345678", code="654321", merchant_name="Shop",
                                                         minutes=10)))
        assert box.code_for("ann@example.com") == "123456"
        assert box.code_for("4712345678@sms.example.net") == "654321"
        [mail] = box.sent_to("ann@example.com")
    assert (mail["From"], mail["Subject"]) == ("shop <codes@s.example>", "123456 is your code for Shop")
    assert mail["Date"] and mail["Message-ID"].endswith("@paygate.invalid>")


def test_a_code_file_that_cannot_be_written_is_refused_naming_the_field(tmp_path: Path) -> None:
    (tmp_path / "mail").write_text("a file where the folder should be")
    settings = load_settings({"PAYGATE_MAIL_DIR": str(tmp_path / "mail"),
                              "PAYGATE_SMS_EMAIL_GATEWAY": "sms.example.net"})
    by_channel = senders(settings, SystemClock())
    with pytest.raises(Unavailable, match=r"^email: the code could not be sent now"):
        asyncio.run(by_channel["email"].send(CODE))
    with pytest.raises(Unavailable, match=r"^phone: the code could not be sent now"):
        asyncio.run(by_channel["phone"].send(CodeMessage(to="+4712345678", code="1", merchant_name="S", minutes=1)))


def test_a_code_mail_no_smtp_server_takes_is_refused_naming_the_field() -> None:
    mailer = SmtpMailer(f"smtp://127.0.0.1:{free_port()}")  # nothing listens there
    with pytest.raises(Unavailable, match=r"^email: the code could not be sent now"):
        asyncio.run(EmailSender(mailer).send(CODE))
    with pytest.raises(Unavailable, match=r"^phone: the code could not be sent now"):
        asyncio.run(SmsGatewaySender("sms.example.net", mailer).send(CODE))


def test_a_file_mailer_that_cannot_write_raises_mail_error_like_smtp(tmp_path: Path) -> None:
    (tmp_path / "mail").write_text("")
    mail = Message()
    mail["To"] = "ann@example.com"
    with pytest.raises(MailError):
        asyncio.run(FileMailer(tmp_path / "mail", clock=SystemClock()).send(mail))
