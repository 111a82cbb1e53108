"""Which signals stop a command or the scheduler the way SIGTERM does (no apscheduler import)."""

from __future__ import annotations

import signal


def stop_signals() -> list[signal.Signals]:
    """SIGTERM, and SIGHUP (the terminal or ssh session it ran in closed) unless it is ignored
    (started under ``nohup``: it goes on)."""
    hangup = getattr(signal, "SIGHUP", None)
    if hangup is None or signal.getsignal(hangup) is signal.SIG_IGN:
        return [signal.SIGTERM]
    return [signal.SIGTERM, hangup]
