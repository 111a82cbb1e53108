"""Errors a user's input or the database's state can cause; the CLI prints each as one line."""


class PipelineError(Exception):
    """A stage cannot run (nothing to score, bad --as-of, …); the message says what to do."""


class InputRefused(PipelineError):
    """A value on the command line is not accepted; the message names it and what is. Exit 2."""
