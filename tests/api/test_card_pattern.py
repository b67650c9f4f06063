"""The spec's card patterns say exactly what the games read as a card: a
string of at most 8 characters matches the pattern if and only if the game's
reader takes it (so a contract tester's schema-valid card is never refused as
no card, and an invalid one never taken), and the pattern bounds its blanks
so that a generator's cards fit the 8 characters (RULES.md 1)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from service.games.cards import CardError, parse_card
from service.games.may_i.melds import parse as parse_may_i_card
from service.spec.fields import CARD_OR_JOKER_PATTERN, CARD_PATTERN

CORES = ["TH", "10h", "a♥", "A♥\ufe0f", "7s\ufe0e", "JK", "joker", "1H", "T", "H", ""]
BLANKS = [" ", "\t", "\u3000", "\n"]


@pytest.mark.parametrize(
    ("pattern", "reader"),
    [(CARD_PATTERN, parse_card), (CARD_OR_JOKER_PATTERN, parse_may_i_card)],
    ids=["card", "card-or-joker"],
)
def test_a_card_matches_the_spec_exactly_when_the_game_reads_it(
    pattern: str, reader: Callable[[str], str]
) -> None:
    checked = 0
    for core in CORES:
        for blank in BLANKS:
            for lead in range(4):
                for trail in range(4):
                    text = blank * lead + core + blank * trail
                    if not 1 <= len(text) <= 8:  # the field's length refuses it first
                        continue
                    try:
                        reader(text)
                        read = True
                    except CardError:
                        read = False
                    assert (re.fullmatch(pattern, text) is not None) == read, repr(text)
                    checked += 1
    assert checked > 300
    assert reader("  TH  ") == "TH"
    with pytest.raises(CardError, match="at most 2 blanks"):
        reader("   TH")
