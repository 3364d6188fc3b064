"""A clock a test moves forward without waiting, across processes: the wall clock plus a number of seconds read
from a file on every call. Product code never reads the file; a test starts paygate with this clock explicitly:

    python -m tests.clock OFFSET_FILE serve --only scheduler     (`paygate serve …` whose runtime has this clock)
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


if __name__ == "__main__":
    from server.cli import main

    sys.exit(main(sys.argv[2:], clock=FileOffsetClock(Path(sys.argv[1]))))
