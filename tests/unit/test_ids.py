"""Identifiers: the spec's prefix and 24 characters drawn uniformly from base62; every prefix the product gives an id
is one the HTTP facade reads as an id in a path (server.ids.PREFIXES)."""

from __future__ import annotations

import re
import string
from collections import Counter
from pathlib import Path

from server.ids import PREFIXES, new_id, random_base62

ALPHABET = string.digits + string.ascii_letters
SERVER = Path(__file__).resolve().parents[2] / "server"


def test_an_id_is_the_prefix_and_24_base62_characters() -> None:
    prefix, _, rest = new_id("inv").partition("_")
    assert prefix == "inv" and len(rest) == 24 and set(rest) <= set(ALPHABET)


def test_random_strings_have_the_length_asked_for() -> None:
    assert [len(random_base62(n)) for n in (1, 8, 24, 100)] == [1, 8, 24, 100]


def test_every_character_is_about_equally_likely() -> None:
    # 124,000 draws, 2,000 expected per character (standard deviation ~44): the bounds are 5 of them.
    counts = Counter("".join(random_base62(100) for _ in range(1240)))
    assert set(counts) == set(ALPHABET)
    assert all(1780 <= counts[c] <= 2220 for c in ALPHABET)


def test_every_prefix_new_id_is_called_with_is_a_known_prefix() -> None:
    used = {m for p in SERVER.rglob("*.py") for m in re.findall(r'new_id\("([a-z]+)"\)', p.read_text())}
    assert used and used <= PREFIXES, sorted(used - PREFIXES)


def test_new_id_is_only_called_with_a_literal_prefix() -> None:
    calls = [(p.name, line) for p in SERVER.rglob("*.py") for line in p.read_text().splitlines()
             if "new_id(" in line and not re.search(r'new_id\("[a-z]+(_[a-z]+)*"\)|def new_id\(', line)]
    assert calls == []
