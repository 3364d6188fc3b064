"""What is kept of a receiver's answer (sender.excerpt_text): text every database stores, at most EXCERPT_BYTES."""

from __future__ import annotations

import logging

from server import logs
from server.webhooks.attempts import EXCERPT_BYTES, excerpt_text


def test_a_nul_byte_in_an_answer_is_kept_as_a_replacement_character() -> None:
    assert excerpt_text(b"ok\x00done") == "ok\ufffddone"


def test_bytes_that_are_not_utf8_are_kept_as_replacement_characters() -> None:
    assert excerpt_text(b"caf\xe9") == "caf\ufffd"


def test_a_long_answer_is_cut_to_the_excerpt_size() -> None:
    assert len(excerpt_text(b"x" * (EXCERPT_BYTES * 3))) == EXCERPT_BYTES


def test_the_card_providers_library_never_logs_below_warning() -> None:
    """`stripe` logs each request's form body at DEBUG, the card token with it."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        logs.configure("DEBUG")
        assert logging.getLogger("stripe").getEffectiveLevel() == logging.WARNING
    finally:
        root.handlers[:], root.level = handlers, level
