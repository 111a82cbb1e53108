"""Text widths for the SVG badges, from real glyph metrics.

shields.io lays its badges out with Verdana 11 px; Verdana is not free to ship, so the table
``badge_widths.json`` holds the advance widths of DejaVu Sans (a Verdana-like humanist sans, and
the font the badge names after Verdana and Geneva) at 11 px, for printable ASCII and the few other
characters badges show, generated from the font file with fontTools:

    python -m datasette_plugins.badge_font /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf

(Debian's fonts-dejavu-core; fontTools is needed only to regenerate it.) A character not in the
table counts as wide as "M", so a badge is never too narrow for its text.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from importlib.resources import files
from pathlib import Path

FONT_PX = 11
TABLE = "badge_widths.json"
EXTRA = "·–—…#%«»é"  # characters badges show beyond ASCII


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


def generate(font_path: str) -> dict[str, object]:
    from fontTools.ttLib import TTFont  # type: ignore[import-not-found,unused-ignore]  # only to regenerate the table

    font = TTFont(font_path)
    cmap = font.getBestCmap()
    hmtx = font["hmtx"]
    per_em = font["head"].unitsPerEm
    chars = [chr(c) for c in range(0x20, 0x7F)] + list(EXTRA)
    table = {ch: round(hmtx[cmap[ord(ch)]][0] * FONT_PX / per_em, 3) for ch in chars if ord(ch) in cmap}
    name = font["name"].getDebugName(4)
    return {"font": name, "px": FONT_PX, "source": Path(font_path).name, "widths": table}


if __name__ == "__main__":
    target = Path(__file__).with_name(TABLE)
    target.write_text(json.dumps(generate(sys.argv[1]), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(f"wrote {target}\n")
