"""`make run` starts localstripe beside the dev chain and points paygate at it before the demo merchant is seeded, so
cards work out of the box (issue 10; the demo's keys and webhook are tested in tests/e2e/cards/test_demo_cards.py).
Read from `make -n run`, which prints the recipe and runs nothing."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def recipe(*overrides: str) -> str:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    done = subprocess.run(["make", "-n", "run", *overrides], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_make_run_starts_a_fresh_localstripe_and_seeds_the_demo_against_it() -> None:
    out = recipe("LOCALSTRIPE_PORT=18421")
    started = re.search(r"localstripe --port (\d+) --from-scratch", out)
    assert started is not None and started.group(1) == "18421", out
    pointed = out.index("export PAYGATE_PROVIDER_A_API_BASE=http://127.0.0.1:18421;")
    demo, serve = out.index("paygate demo"), out.index("paygate serve")
    assert started.start() < pointed < demo < serve
    # One shell line from localstripe to serve: the exported address reaches the demo and the server alike.
    assert "\n" not in out[started.start():serve].replace("\\\n", "")
