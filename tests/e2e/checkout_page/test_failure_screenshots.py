"""A failed browser test leaves a screenshot of each of its pages behind (conftest.py), and says where.

Shown by running a failing browser test in a pytest of its own, with this folder's conftest.py as its plugin.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[3]
FAILING = '''
def test_a_page_that_fails(page):
    page.set_content("<h1>Broken checkout</h1>")
    assert page.text_content("h1") == "A working checkout"
'''


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])  # type: ignore[return-value]


def test_a_failed_test_saves_a_screenshot_of_its_page_and_prints_its_path(tmp_path: Path) -> None:
    (tmp_path / "test_broken.py").write_text(FAILING)
    artifacts = tmp_path / "artifacts"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PAYGATE_TEST_ARTIFACTS"))}
    env.update(PYTHONPATH=str(ROOT), PAYGATE_TEST_ARTIFACTS=str(artifacts))
    # Under the 300 s limit of this folder's tests, so a slow run is ended here and its pytest with it.
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "test_broken.py", "-p", "tests.e2e.checkout_page.conftest",
         "-p", "no:cacheprovider", "-c", os.devnull, "--rootdir", str(tmp_path), "-q", "-rA"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=280)
    assert run.returncode == 1, run.stdout + run.stderr  # the test failed, and nothing else went wrong
    shots = sorted((artifacts / "checkout-screenshots").glob("*.png"))
    assert len(shots) == 1, run.stdout
    assert f"screenshot: {shots[0]}" in run.stdout
    assert "test_a_page_that_fails" in shots[0].name
    assert png_size(shots[0].read_bytes()) == (390, 844)  # the page, at the phone size the tests use

