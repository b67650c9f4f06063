"""Names that people may take (RULES.md 5.1: names of the form ``Bot …``
are the bots'), HTTP-free and game-free: the schemas refuse them wherever a
person names a seat (a new table's players, a join).

A name passes for a bot's when it reads "Bot" as its first word, to the
eye, whatever characters draw it: it is compared by its *skeleton*
(Unicode's own idea, UTS #39): compatibility forms first (NFKD: fullwidth
``Ｂｏｔ``, mathematical ``𝐁𝐨𝐭``, circled ``Ⓑ``), with every mark dropped
(``Bòt``, a ``B`` struck through by U+0336); then every letter that Unicode
names as a Latin letter drawn otherwise becomes that letter: small
capitals (``ʙᴏᴛ``), with a hook, stroke, bar or tail (``Ɓ``, ``Ƀ``, ``ø``,
``ŧ``, ``ƭ``), barred, dotless or script forms (``ɵ``); then every letter
that is confusable with a Latin one becomes that letter (Greek ``ο``,
Cyrillic ``В о т``, Cherokee ``Ᏼ``, the digit ``0``), by the confusables
table of the ``confusable_homoglyphs`` library, which ships Unicode's data;
then case-folded. Refused: a skeleton that starts
(after any non-letters) with ``bot`` not followed by a letter: ``Bot``,
``bot 3``, ``BOT-3 (basic)``, ``Bot3``; allowed: ``Bottle``, ``Robot``,
``Abbot``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from confusable_homoglyphs import confusables

BOT_WORD = re.compile(r"[^a-z]*bot(?:[^a-z].*)?", re.DOTALL)
"""A skeleton that reads "bot" as its first word."""

LATIN_LETTER = re.compile(r"LATIN (?:CAPITAL |SMALL )?LETTER (?:SMALL CAPITAL )?([A-Z])")
"""The Unicode name of a Latin letter (small capitals too), its letter in group 1."""

LATIN_DRAWN = re.compile(
    r"LATIN (?:CAPITAL |SMALL )?LETTER (?:SMALL CAPITAL |BARRED |DOTLESS |SCRIPT )?"
    r"([A-Z])(?: WITH .+)?"
)
"""The Unicode name of a Latin letter drawn otherwise (a small capital, with
a hook, stroke, bar, tail...; barred, dotless, script), its letter in group
1. Turned, reversed and open letters are not read as theirs."""

DROPPED = frozenset(("Mn", "Me", "Cf"))
"""Marks (a reader sees the letter under them) and invisible format characters."""

BOT_NAME_RULE = (
    "names of the form `Bot …` are the bots' (RULES.md 5.1): a person's name may not read "
    '"Bot" as its first word, in any case or in letters that look alike'
)


@lru_cache(maxsize=4096)
def _latin(ch: str) -> str:
    """``ch``, or the Latin letter it is confusable with (lower case)."""
    if "a" <= ch.lower() <= "z":
        return ch.lower()
    drawn = LATIN_DRAWN.fullmatch(unicodedata.name(ch, ""))
    if drawn is not None:
        return drawn.group(1).lower()
    found = confusables.is_confusable(ch, greedy=True, preferred_aliases=["latin"])
    for glyph in found or ():
        for alike in glyph["homoglyphs"]:
            letter = LATIN_LETTER.fullmatch(alike["n"])
            if letter is not None:
                return letter.group(1).lower()
    return ch.casefold()


def skeleton(name: str) -> str:
    """``name`` as it reads: NFKD without marks, Latin letters drawn otherwise
    and confusables as their Latin letters, case-folded."""
    kept = unicodedata.normalize("NFKD", name)
    return "".join(_latin(ch) for ch in kept if unicodedata.category(ch) not in DROPPED)


def bot_like(name: str) -> bool:
    """Whether ``name`` passes for a bot's (``Bot …``): only bots may bear it."""
    return BOT_WORD.fullmatch(skeleton(name)) is not None
