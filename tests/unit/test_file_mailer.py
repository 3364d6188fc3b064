"""FileMailer: each message becomes its own `.eml` file under its folder, made when first needed."""

from __future__ import annotations

import asyncio
import email
from email.mime.text import MIMEText
from pathlib import Path

from server.clock import SystemClock
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
