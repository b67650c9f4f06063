"""Unicode's Default_Ignorable_Code_Point: the characters a renderer draws
as nothing when it does not support them (and often when it does), so that
a text holding one looks like the text without it (``Bo\\u1160t`` reads
"Bot"). Python's ``unicodedata`` has no property lookup, so the ranges are
copied from DerivedCoreProperties.txt (unchanged from Unicode 14.0, the
database of this Python, to 16.0); the property is stable: a code point
never leaves it.
"""

from __future__ import annotations

import bisect
import unicodedata

DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # SOFT HYPHEN
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x061C, 0x061C),  # ARABIC LETTER MARK
    (0x115F, 0x1160),  # HANGUL CHOSEONG FILLER, JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ, AA
    (0x180B, 0x180F),  # MONGOLIAN FREE VARIATION SELECTORS, VOWEL SEPARATOR
    (0x200B, 0x200F),  # ZERO WIDTH SPACE .. RIGHT-TO-LEFT MARK
    (0x202A, 0x202E),  # LEFT-TO-RIGHT EMBEDDING .. RIGHT-TO-LEFT OVERRIDE
    (0x2060, 0x206F),  # WORD JOINER .. NOMINAL DIGIT SHAPES (2065 reserved)
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFE00, 0xFE0F),  # VARIATION SELECTOR-1 .. 16
    (0xFEFF, 0xFEFF),  # ZERO WIDTH NO-BREAK SPACE (the BOM)
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFF8),  # reserved
    (0x1BCA0, 0x1BCA3),  # SHORTHAND FORMAT LETTER OVERLAP .. UP STEP
    (0x1D173, 0x1D17A),  # MUSICAL SYMBOL BEGIN BEAM .. END PHRASE
    (0xE0000, 0xE0FFF),  # tags, VARIATION SELECTOR-17 .. 256, reserved
)
"""Default_Ignorable_Code_Point as (first, last) code points, in order."""

_FIRSTS = [first for first, _ in DEFAULT_IGNORABLE]


def ignorable(ch: str) -> bool:
    """Whether the character ``ch`` is Default_Ignorable_Code_Point."""
    code = ord(ch)
    at = bisect.bisect_right(_FIRSTS, code) - 1
    return at >= 0 and code <= DEFAULT_IGNORABLE[at][1]


def first_ignorable(text: str) -> str | None:
    """The first Default_Ignorable_Code_Point of ``text`` as ``U+XXXX (ITS
    NAME)`` (``None``: it holds none)."""
    for ch in text:
        if ignorable(ch):
            name = unicodedata.name(ch, "unassigned")
            return f"U+{ord(ch):04X} ({name})"
    return None
