"""Text widths for the SVG badges, from real glyph metrics.

shields.io lays its badges out with Verdana 11 px; Verdana is not free to ship, so the table
``badge_widths.json`` holds the advance widths of DejaVu Sans (a Verdana-like humanist sans, and
the font the badge names after Verdana and Geneva) at 11 px, for printable ASCII and the few other
characters badges show, generated from the font file with fontTools:

    python bench/badge_widths.py /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf

(Debian's fonts-dejavu-core; fontTools is needed only to regenerate it.) A character not in the
table counts as wide as "M", so a badge is never too narrow for its text.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files

FONT_PX = 11
TABLE = "badge_widths.json"


@cache
def widths() -> dict[str, float]:
    table: dict[str, float] = json.loads(files("datasette_plugins").joinpath(TABLE).read_text(encoding="utf-8"))[
        "widths"
    ]
    return table


def text_width(text: str) -> float:
    """Width in px of ``text`` at 11 px, from the glyph table."""
    table = widths()
    wide = table["M"]
    return sum(table.get(ch, wide) for ch in text)
