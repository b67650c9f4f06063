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
table of the ``confusable_homoglyphs`` library, which ships Unicode's data,
also where the table draws it as a Latin letter with a mark (fita ``ѳ``,
theta ``θ``, barred ``ө``: an o with a stroke); every Cyrillic O drawn
otherwise (narrow ``ᲂ``, monocular ``ꙩ``, crossed ``ꚛ``), which the table
leaves out, becomes ``o``, and so does a Latin o drawn sideways, turned or
reversed (``ᴑ``), a turned or insular t, a dagger, a plus, a Latin cross
or an up tack (``ʇ``, ``ꞇ``, ``†``, ``+``, ``✝``, ``⊥``) a ``t``, what is
drawn as a b (``฿``, ``8``, ``ь``, ``Ъ``, ``β``, ``ß``, ``Þ``,
``Բ``: :data:`B_DRAWN`) a ``b``; then case-folded. Before all
that, a symbol or combining mark named for a Latin letter is that letter
(``🅱``, ``Ⓑ``, a combining o above), and a number or symbol that NFKD
would spell in ASCII is a separator (``Bot™``, ``BotⅡ``, ``Bot¹``: "Bot"
and a sign, not "Bottm"); what a reader does not see between two letters goes: spaces other
than the ones a keyboard types (a hair or thin space, ``B\u200aot``, reads
"Bot") and symbols that draw nothing (the blank Braille pattern
``B\u2800ot``, the null notehead U+1D159), and the spacing forms of
marks (``B¨ot``, ``B^o^t``). A name holding a character
drawn as nothing (``Bo\u1160t``) never gets here: the text rule refuses it
(:mod:`.ignorable`). Refused: a skeleton that starts (after any
non-letters) with ``bot``, or with ``b``, any one character outside ASCII
that no rule above made a Latin letter (``B°t``, ``B𐒆t``: no person's name
is written so, and no table can list every round shape of every script),
and ``t``, with punctuation or ASCII symbols between them or not
(``B.o.t``, ``B’o’t``, ``B|o|t``, ``B~o~t``), not followed
by a letter: ``Bot``, ``bot 3``, ``BOT-3 (basic)``, ``Bot3``; allowed:
``Bottle``, ``Robot``, ``Abbot``, ``Bät`` (an ``a``), ``B o t`` (spaces a
keyboard types).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from confusable_homoglyphs import confusables

BOT_WORD = re.compile(r"[^a-z]*b\x01*(?:o|[^\x00-\x7f])\x01*t(?:[^a-z].*)?", re.DOTALL)
"""A skeleton that reads "bot" as its first word (its o any character
outside ASCII: what is left there after the skeleton is no Latin letter),
punctuation (marked ``\x01``) between its letters or not: ``B.o.t``."""

UNSEEN = frozenset("\u2800\U0001d159")
"""Symbols that draw nothing: the blank Braille pattern, the null notehead."""

TYPED_SPACES = frozenset(" \u00a0\u3000")
"""The spaces a keyboard types (space, no-break, ideographic): a word gap
that a reader sees. Every other space (hair, thin, punctuation...) goes."""

LATIN_LETTER = re.compile(r"LATIN (?:CAPITAL |SMALL )?LETTER (?:SMALL CAPITAL )?([A-Z])")
"""The Unicode name of a Latin letter (small capitals too), its letter in group 1."""

LATIN_DRAWN = re.compile(
    r"LATIN (?:CAPITAL |SMALL )?LETTER (?:SMALL CAPITAL |BARRED |DOTLESS |SCRIPT )?"
    r"([A-Z])(?: WITH .+)?"
)
"""The Unicode name of a Latin letter drawn otherwise (a small capital, with
a hook, stroke, bar, tail...; barred, dotless, script), its letter in group
1. Turned, reversed and open letters are not read as theirs."""

DROPPED = frozenset(("Mn", "Me", "Cf", "Sk"))
"""Marks (a reader sees the letter under them), the spacing forms of marks
(``¨``, ``^``, ``´``: ``B¨ot`` reads "Bot") and invisible format characters."""

BOT_NAME_RULE = (
    "names of the form `Bot …` are the bots' (RULES.md 5.1): a person's name may not read "
    '"Bot" as its first word, in any case or in letters that look alike'
)


O_DRAWN = re.compile(
    r"(?:CYRILLIC (?:CAPITAL |SMALL )?LETTER (?:[A-Z]+ )*|"
    r"LATIN (?:CAPITAL |SMALL )?LETTER (?:SIDEWAYS |TURNED |REVERSED )+)O(?: WITH .+)?"
)
"""The Unicode name of a Cyrillic O drawn otherwise (narrow, barred, monocular,
binocular, multiocular, double, crossed: each a round o), which the
confusables table leaves out. Only O: other Cyrillic letters are named by
their sound (``И`` is "I", ``У`` is "U"), not by the Latin letter they look like.
A Latin o drawn sideways, turned or reversed is still round."""

T_DRAWN = re.compile(
    r"LATIN (?:CAPITAL |SMALL )?LETTER (?:TURNED|INSULAR) T|DAGGER|PLUS SIGN|LATIN CROSS|"
    r"UP TACK|BOX DRAWINGS (?:\w+ )*UP AND (?:\w+ )*HORIZONTAL"
)
"""A turned t (``ʇ``: the cross and hook of a t, upside down), an insular
t (``ꞇ``), a dagger, a plus sign, a Latin cross (``†``, ``Bo+``, ``✝``), an
up tack or a box drawing of that shape (``⊥``, ``┴``)."""

LETTER_SYMBOL = re.compile(r"(?:.* )?(?:LATIN (?:CAPITAL |SMALL )?|SYMBOL )LETTER ([A-Z])")
"""The Unicode name of a symbol or a combining mark that draws a Latin
letter (``🅱``, NEGATIVE SQUARED LATIN CAPITAL LETTER B; ``ͦ``, COMBINING
LATIN SMALL LETTER O; regional indicators), its letter in group 1."""

NUMBERS_AND_SYMBOLS = frozenset(("No", "Nl", "So", "Sm", "Sc"))
"""Categories whose compatibility forms spell letters or digits (``¹``,
``Ⅱ``, ``™``): outside ASCII, such a character that draws no Latin
letter stands for itself, not for what NFKD would make of it."""

B_DRAWN = frozenset(
    (
        *("THAI CURRENCY SYMBOL BAHT", "BITCOIN SIGN", "DIGIT EIGHT"),
        *("CYRILLIC SMALL LETTER SOFT SIGN", "CYRILLIC CAPITAL LETTER SOFT SIGN"),
        *("CYRILLIC SMALL LETTER HARD SIGN", "CYRILLIC CAPITAL LETTER HARD SIGN"),
        *("GREEK SMALL LETTER BETA", "GREEK BETA SYMBOL", "ARMENIAN CAPITAL LETTER BEN"),
        *("LATIN SMALL LETTER SHARP S", "LATIN CAPITAL LETTER SHARP S"),
        *("LATIN SMALL LETTER BETA", "LATIN CAPITAL LETTER BETA"),
        *("LATIN SMALL LETTER TONE SIX", "LATIN CAPITAL LETTER TONE SIX"),
        *("LATIN SMALL LETTER THORN", "LATIN CAPITAL LETTER THORN"),
    )
)
"""What is drawn as a b or B and no table maps to one: currency signs with a
stroke (``฿``, ``₿``), an 8, a soft or hard sign (``ь``, ``Ъ``), a beta (``β``), a sharp s
(``ß``), Armenian ben (``Բ``), the tone six (``ƅ``), a thorn (``Þ``)."""


def _bare(text: str) -> str:
    """``text`` without its marks and format characters."""
    return "".join(ch for ch in text if unicodedata.category(ch) not in DROPPED)


@lru_cache(maxsize=4096)
def _latin(ch: str) -> str:
    """``ch``, or the Latin letter it is confusable with (lower case)."""
    if "a" <= ch.lower() <= "z":
        return ch.lower()
    name = unicodedata.name(ch, "")
    drawn = LATIN_DRAWN.fullmatch(name)
    if drawn is not None:
        return drawn.group(1).lower()
    if O_DRAWN.fullmatch(name) is not None:
        return "o"
    if T_DRAWN.fullmatch(name) is not None:
        return "t"
    if name in B_DRAWN:
        return "b"
    found = confusables.is_confusable(ch, greedy=True, preferred_aliases=["latin"])
    homoglyphs = [alike for glyph in found or () for alike in glyph["homoglyphs"]]
    for alike in homoglyphs:
        letter = LATIN_LETTER.fullmatch(alike["n"])
        if letter is not None:
            return letter.group(1).lower()
    for alike in homoglyphs:
        # A Latin letter with marks (the table draws fita ``ѳ`` and theta
        # ``θ`` as o with a stroke overlay): the skeleton drops marks.
        bare = _bare(unicodedata.normalize("NFKD", alike["c"]))
        letter = LATIN_LETTER.fullmatch(unicodedata.name(bare, "")) if len(bare) == 1 else None
        if letter is not None:
            return letter.group(1).lower()
    return ch.casefold()


def _prepared(name: str) -> str:
    """``name`` with symbols and marks that draw a Latin letter as that
    letter, other symbols and numbers outside ASCII that NFKD would spell as
    ASCII as a separator (``Bot™``, ``BotⅡ``: "Bot" and a sign, not
    "Bottm"), without what draws nothing or
    a narrow gap and without the spacing forms of marks, then NFKD without
    marks."""
    seen = "".join(
        _standing(ch)
        for ch in _bare("".join(map(_drawn_letter, name)))
        if ch not in UNSEEN and (ch in TYPED_SPACES or unicodedata.category(ch) != "Zs")
    )
    return _bare(unicodedata.normalize("NFKD", seen))


def _drawn_letter(ch: str) -> str:
    """The Latin letter a symbol or combining mark ``ch`` draws, else ``ch``."""
    if ch < "\x80" or unicodedata.category(ch) not in ("So", "Mn"):
        return ch
    found = LETTER_SYMBOL.fullmatch(unicodedata.name(ch, ""))
    return found.group(1).lower() if found is not None else ch


def _standing(ch: str) -> str:
    """``ch``, or a bullet (a separator) for a number or symbol outside ASCII
    whose compatibility form spells ASCII letters or digits but that draws
    no Latin letter (:data:`NUMBERS_AND_SYMBOLS`: ``™``, ``Ⅱ``, ``¹``)."""
    if ch < "\x80" or unicodedata.category(ch) not in NUMBERS_AND_SYMBOLS:
        return ch
    spelt = unicodedata.normalize("NFKD", ch)
    if spelt == ch or not any(c < "\x80" and c.isalnum() for c in spelt):
        return ch
    return ch if "a" <= _latin(ch) <= "z" else "\u2022"


def skeleton(name: str) -> str:
    """``name`` as it reads: without what draws nothing or a narrow gap,
    NFKD without marks, Latin letters drawn otherwise and confusables as
    their Latin letters, case-folded."""
    return "".join(_latin(ch) for ch in _prepared(name))


def bot_like(name: str) -> bool:
    """Whether ``name`` passes for a bot's (``Bot …``): only bots may bear it."""
    # Punctuation is marked before the confusables: ``|`` is an l to them.
    marked = "".join("\x01" if _separates(ch) else _latin(ch) for ch in _prepared(name))
    return BOT_WORD.fullmatch(marked) is not None


def _separates(ch: str) -> bool:
    """Whether ``ch`` is punctuation a reader skips between letters: ASCII's
    punctuation and symbols (``B~o~t``, ``B|o|t``, ``B=o=t``), dashes,
    connectors and quotation marks (``‐``, ``_``, ``’``), middle dots. Other
    punctuation stays a character (Thai ``๏`` is punctuation, and round)."""
    category = unicodedata.category(ch)
    if ch < "\x80":
        return category[0] in "PS" and ch != "+"  # a plus is drawn as a t
    return category in ("Pd", "Pc", "Pi", "Pf") or ch in MIDDLE_DOTS


MIDDLE_DOTS = frozenset("\u00b7\u2027\u30fb\u2022\u2219\u22c5")
"""Dots drawn between letters: middle dot, hyphenation point, katakana
middle dot, bullet, bullet operator, dot operator."""
