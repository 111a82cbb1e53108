"""Generate datasette_plugins/badge_widths.json (the SVG badges' glyph widths) from a font file, and
print how wide the badge texts come out (and what the old per-character guess gave).

    python bench/badge_widths.py /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf

Needs fontTools (``pip install fonttools``), only to regenerate: the product reads the JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

FONT_PX = 11
EXTRA = "·–—…#%«»é"  # characters badges show beyond ASCII
TARGET = Path(__file__).resolve().parent.parent / "datasette_plugins" / "badge_widths.json"
SAMPLES = ("AgentRank", "87.3 · #12", "87.3 · #1,204 · Coding agent", "not listed")


def generate(font_path: str) -> dict[str, object]:
    from fontTools.ttLib import TTFont

    font = TTFont(font_path)
    cmap = font.getBestCmap()
    hmtx = font["hmtx"]
    per_em = font["head"].unitsPerEm
    chars = [chr(c) for c in range(0x20, 0x7F)] + list(EXTRA)
    table = {ch: round(hmtx[cmap[ord(ch)]][0] * FONT_PX / per_em, 3) for ch in chars if ord(ch) in cmap}
    return {"font": font["name"].getDebugName(4), "px": FONT_PX, "source": Path(font_path).name, "widths": table}


def old_guess(text: str) -> int:
    """The width before the table: 6.2 px for digits and ' .·#', 7.2 px for anything else."""
    return int(sum(6.2 if ch.isdigit() or ch in " .·#" else 7.2 for ch in text))


if __name__ == "__main__":
    TARGET.write_text(json.dumps(generate(sys.argv[1]), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {TARGET}")
    from datasette_plugins.badge_font import text_width, widths

    widths.cache_clear()
    for sample in SAMPLES:
        print(f"{sample!r}: {text_width(sample):.1f} px from the glyphs, {old_guess(sample)} px guessed before")
