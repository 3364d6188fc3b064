"""Every prefix the product gives an id is one the HTTP facade reads as an id in a path (server.ids.PREFIXES)."""

from __future__ import annotations

import re
from pathlib import Path

from server.ids import PREFIXES

SERVER = Path(__file__).resolve().parents[2] / "server"


def test_every_prefix_new_id_is_called_with_is_a_known_prefix() -> None:
    used = {m for p in SERVER.rglob("*.py") for m in re.findall(r'new_id\("([a-z]+)"\)', p.read_text())}
    assert used and used <= PREFIXES, sorted(used - PREFIXES)


def test_new_id_is_only_called_with_a_literal_prefix() -> None:
    calls = [(p.name, line) for p in SERVER.rglob("*.py") for line in p.read_text().splitlines()
             if "new_id(" in line and not re.search(r'new_id\("[a-z]+"\)|def new_id\(', line)]
    assert calls == []
