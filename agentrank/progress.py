"""Progress lines on stderr for the long commands (``demo``, ``refresh``).

On a terminal the stage in progress is one line overwritten in place, and :meth:`Report.close`
ends it with a newline so the summary on stdout starts on a line of its own. Without a terminal
(a log file, a pipe, cron) every line is written whole: one line per stage with its time.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


class Report:
    """Progress lines on stderr (``enabled=False``: kept in ``lines`` only, nothing written).

    A transient line (a stage done) is overwritten by the next line on a terminal and written as
    a line of its own elsewhere.
    """

    def __init__(self, enabled: bool = True, *, terminal: bool | None = None):
        self.enabled = enabled
        self.terminal = sys.stderr.isatty() if terminal is None else terminal
        self.lines: list[str] = []
        self._open = False  # a transient line is on the terminal, without its newline

    def __call__(self, line: str, *, transient: bool = False) -> None:
        if not transient:
            self.lines.append(line)
        if not self.enabled:
            return
        if self.terminal:
            sys.stderr.write(f"\r\x1b[K{line}{'' if transient else chr(10)}")
            self._open = transient
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def close(self) -> None:
        """End a transient line with a newline, so what is printed next starts a line of its own."""
        if self.enabled and self._open:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self._open = False


def stage_ticker(report: Report, prefix: str) -> Callable[[str], None]:
    """An ``after_stage`` callback: ``PREFIX: STAGE done in 1.2 s`` after each stage."""
    last = [time.monotonic()]

    def tick(stage: str) -> None:
        now = time.monotonic()
        report(f"{prefix}{stage} done in {now - last[0]:.1f} s", transient=True)
        last[0] = now

    return tick
