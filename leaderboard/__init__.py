"""The task-benchmark ledger: attempts in (``agentrank import-attempts``), leaderboards out.

Not to be confused with ``bench/``, the project's own speed figures.
"""
