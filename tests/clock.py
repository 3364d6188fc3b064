"""Clocks tests give a runtime (server/clock.py's `Clock`), so time moves without waiting.

`FileOffsetClock`, across processes: the wall clock plus a number of seconds read from a file on every call.
Product code never reads the file; a test starts paygate with this clock explicitly:

    python -m tests.clock OFFSET_FILE serve --only scheduler     (`paygate serve …` whose runtime has this clock)

`SetClock`, in one process: given to a Database or a Runtime (`clock=`), set by the test.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


class FileOffsetClock:
    def __init__(self, offset_file: Path) -> None:
        self.offset_file = offset_file

    def offset(self) -> int:
        try:
            return int(self.offset_file.read_text().strip() or 0)
        except (OSError, ValueError):
            return 0

    def now(self) -> int:
        return int(time.time()) + self.offset()


class SetClock:
    """The wall clock until `at(t)`; then `t`, until set again."""

    def __init__(self, t: int | None = None) -> None:
        self.fixed = t

    def at(self, t: int) -> None:
        self.fixed = t

    def now(self) -> int:
        return int(time.time()) if self.fixed is None else self.fixed


if __name__ == "__main__":
    from server.boot.cli import main

    sys.exit(main(sys.argv[2:], clock=FileOffsetClock(Path(sys.argv[1]))))
