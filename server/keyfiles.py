"""Development secrets generated on first start into `var/` (test mode only; live mode needs configured ones).

Several processes of one installation may start at once: the file is created exclusively, and a process that
loses the race reads what the winner wrote, so every process of the installation agrees on the secret.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

VAR = Path("var")


def load_or_create(name: str, make: Callable[[], str], var_dir: Path = VAR) -> str:
    path = var_dir / name
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w") as f:
                f.write(make() + "\n")
            return path.read_text().strip()
    # Written by another process a moment ago: wait for its content.
    for _ in range(50):
        text = path.read_text().strip()
        if text:
            return text
        time.sleep(0.02)
    raise RuntimeError(f"{path} is empty; delete it to generate a new development secret")
