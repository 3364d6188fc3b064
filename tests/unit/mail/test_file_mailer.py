"""FileMailer: each message becomes its own `.eml` file under its folder, made when first needed."""

from __future__ import annotations

import asyncio
import email
import os
import stat
from collections.abc import Iterator
from email.mime.text import MIMEText
from pathlib import Path

import pytest

from server.checkout.code_delivery import CodeMessage, senders
from server.clock import SystemClock
from server.config import load_settings
from server.mail import FAST_COMPAT32, FileMailer


def message(n: int) -> MIMEText:
    mail = MIMEText(f"body {n}\n", "plain", "us-ascii", policy=FAST_COMPAT32)
    mail["To"] = "ann@example.com"
    mail["Subject"] = f"message {n}"
    return mail


def test_messages_become_eml_files_readable_as_sent(tmp_path: Path) -> None:
    folder = tmp_path / "not" / "yet"
    mailer = FileMailer(folder, sender="paygate <p@x.y>", clock=SystemClock())

    async def send() -> None:
        for n in range(50):
            await mailer.send(message(n))

    asyncio.run(send())
    parsed = [email.message_from_bytes(p.read_bytes()) for p in folder.glob("*.eml")]
    assert sorted(m["Subject"] for m in parsed) == sorted(f"message {n}" for n in range(50))
    assert {m["From"] for m in parsed} == {"paygate <p@x.y>"} and all(m["Message-ID"] for m in parsed)


def test_send_many_writes_every_message_and_counts_them(tmp_path: Path) -> None:
    mailer = FileMailer(tmp_path / "mail", sender="paygate <p@x.y>", clock=SystemClock())
    written = asyncio.run(mailer.send_many([message(n) for n in range(30)]))
    parsed = [email.message_from_bytes(p.read_bytes()) for p in (tmp_path / "mail").glob("*.eml")]
    assert written == 30
    assert sorted(m["Subject"] for m in parsed) == sorted(f"message {n}" for n in range(30))
    assert {m["From"] for m in parsed} == {"paygate <p@x.y>"}


def test_send_many_stops_at_the_first_file_it_cannot_write_and_counts_those_before(tmp_path: Path) -> None:
    mailer = FileMailer(tmp_path / "mail", clock=SystemClock())
    real = FileMailer._write
    calls = 0

    def full_disk_after_two(self: FileMailer, raw: bytes) -> str:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise OSError(28, "No space left on device")
        return real(self, raw)

    FileMailer._write = full_disk_after_two  # type: ignore[method-assign]
    try:
        written = asyncio.run(mailer.send_many([message(n) for n in range(5)]))
    finally:
        FileMailer._write = real  # type: ignore[method-assign]
    assert written == 2 and calls == 3
    assert sorted(email.message_from_bytes(p.read_bytes())["Subject"] for p in (tmp_path / "mail").glob("*.eml")) \
        == ["message 0", "message 1"]


# ---------------------------------------------------------------- owner-only files (DESIGN §16)


@pytest.fixture
def common_umask() -> Iterator[None]:
    """The usual 022, which leaves a file made 0666 readable by everyone."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_mail_files_are_readable_by_their_owner_only(tmp_path: Path, common_umask: None) -> None:
    mailer = FileMailer(tmp_path / "mail", clock=SystemClock())
    asyncio.run(mailer.send(message(1)))
    asyncio.run(mailer.send_many([message(2), message(3)]))
    assert sorted(mode_of(p) for p in (tmp_path / "mail").glob("*.eml")) == [0o600, 0o600, 0o600]


def test_the_mail_folder_is_made_for_its_owner_only(tmp_path: Path, common_umask: None) -> None:
    asyncio.run(FileMailer(tmp_path / "var" / "mail", clock=SystemClock()).send(message(1)))
    assert mode_of(tmp_path / "var" / "mail") == 0o700


def test_a_mail_folder_open_to_others_is_closed_on_the_first_message(tmp_path: Path, common_umask: None) -> None:
    folder = tmp_path / "mail"
    folder.mkdir(mode=0o755)
    asyncio.run(FileMailer(folder, clock=SystemClock()).send(message(1)))
    assert mode_of(folder) == 0o700


def test_one_time_code_files_are_readable_by_their_owner_only(tmp_path: Path, common_umask: None) -> None:
    settings = load_settings({"PAYGATE_MAIL_DIR": str(tmp_path / "mail")})
    sender = senders(settings, SystemClock())["email"]
    asyncio.run(sender.send(CodeMessage(to="ann@example.com", code="123456", merchant_name="Shop", minutes=10)))
    [written] = (tmp_path / "mail").glob("*.eml")
    assert "123456" in written.read_text()
    assert mode_of(written) == 0o600 and mode_of(tmp_path / "mail") == 0o700
