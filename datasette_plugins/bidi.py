"""Repo text beside our own words: a name may carry bidirectional controls (a right-to-left override
reverses everything after it on the line, star counts included), so it goes inside an isolate."""

from __future__ import annotations

import re

# Bidirectional controls (embeddings, overrides, isolates): repo text keeps them, inside an isolate.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def isolated(text: str) -> str:
    """``text`` in an isolate (FSI … PDI) when it holds a bidirectional control, so a right-to-left
    override in it cannot reverse what follows it."""
    return "\u2068" + text + "\u2069" if _BIDI.search(text) else text
