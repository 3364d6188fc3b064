"""A real SMTP server for tests: aiosmtpd on loopback, keeping every message it receives."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from typing import Any

from aiosmtpd.controller import Controller

from tests.harness import free_port

# The e-mail-to-SMS gateway domain (PAYGATE_SMS_EMAIL_GATEWAY) of the test services: a phone code for +4712345678 is
# mailed to 4712345678@SMS_GATEWAY, which this SMTP server receives like any other message.
SMS_GATEWAY = "sms.example.net"


def sms_address(phone: str) -> str:
    return f"{phone.removeprefix('+')}@{SMS_GATEWAY}"


@dataclass
class Mailbox:
    """Messages the server received, oldest first. `url` is the PAYGATE_SMTP_URL that reaches it."""

    port: int
    messages: list[Message] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.lock:
            self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"

    def mark(self) -> int:
        with self.lock:
            return len(self.messages)

    def code_for(self, address: str, since: int = 0, timeout: float = 15) -> str:
        """The six-digit code of the newest message to `address` received after `mark()` gave `since`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                for m in reversed(self.messages[since:]):
                    body = m.get_payload()
                    if m["To"] == address and isinstance(body, str) and (found := re.search(r"\b(\d{6})\b", body)):
                        return found.group(1)
            time.sleep(0.05)
        raise AssertionError(f"no code e-mailed to {address}")

    def sent_to(self, address: str, since: int = 0) -> list[Message]:
        with self.lock:
            return [m for m in self.messages[since:] if m["To"] == address]


@contextmanager
def smtp_server() -> Iterator[Mailbox]:
    box = Mailbox(free_port())
    controller = Controller(box, hostname="127.0.0.1", port=box.port)
    controller.start()
    try:
        yield box
    finally:
        controller.stop()
