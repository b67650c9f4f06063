"""Citations of the rule book (``RULES.md 2.4``) as links to the rules pages
the service serves (``docs/rules/``): the rule book itself is the team's;
users read the pages."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..games import GAMES

RULES_PAGES = {
    "1": ("my-ship-sails", "cards", "cards and seats"),
    "2": ("my-ship-sails", "", "My Ship Sails"),
    "2.1": ("my-ship-sails", "the-goal", "the goal"),
    "2.2": ("my-ship-sails", "options", "options"),
    "2.3": ("my-ship-sails", "decks", "decks"),
    "2.4": ("my-ship-sails", "the-deal", "the deal"),
    "2.5": ("my-ship-sails", "passing", "passing"),
    "2.6": ("my-ship-sails", "declaring", "declaring"),
    "2.7": ("my-ship-sails", "simultaneous-winners", "simultaneous winners"),
    "2.8": ("my-ship-sails", "rounds", "rounds and the match"),
    "2.9": ("my-ship-sails", "presets", "presets"),
    "2.10": ("my-ship-sails", "worked-example", "the worked example"),
    "2.11": ("my-ship-sails", "referees-choices", "the referee's choices"),
    "3": ("sevens", "", "Sevens"),
    "3.1": ("sevens", "goal", "the goal"),
    "3.2": ("sevens", "players-and-cards", "players, decks and the deal"),
    "3.3": ("sevens", "the-layout", "the layout"),
    "3.4": ("sevens", "opening-and-turns", "opening and turns"),
    "3.5": ("sevens", "end-of-a-round-and-scoring", "the end of a round and scoring"),
    "3.6": ("sevens", "presets", "presets"),
    "4": ("may-i", "", "May I?"),
    "4.1": ("may-i", "players-and-cards", "players and cards"),
    "4.2": ("may-i", "melds", "melds"),
    "4.3": ("may-i", "contracts", "contracts"),
    "4.4": ("may-i", "the-deal", "the deal"),
    "4.5": ("may-i", "a-turn", "a turn"),
    "4.6": ("may-i", "may-i", "May I?"),
    "4.7": ("may-i", "ending-a-round", "ending a round"),
    "4.8": ("may-i", "scoring-and-the-match", "scoring and the match"),
    "5": ("", "seats-and-the-lobby", "every game: seats and the lobby"),
    "5.1": ("", "seats-and-the-lobby", "every game: seats and who joins"),
    "5.6": ("", "seats-and-the-lobby", "every game: listing open tables"),
}
"""The rule book's sections, as the rules pages the service serves (the rule
book itself is the team's; users read ``docs/rules/``)."""

GUIDE_PAGES = {"5.2": ("deal-proofs", "deals anyone can check")}
"""Sections a page of the guide (``docs/guide/``) explains rather than a rules page."""

_CITATION = re.compile(r"RULES\.md(?:\s+section)?\s+(\d+(?:\.\d+)?)((?:,\s*\d+(?:\.\d+)?)*)")


def served(page: str, anchor: str = "") -> str:
    """The served URL of a rules page (``sevens``; ``""``: the index) and
    anchor: ``/docs/rules/sevens#goal``."""
    return f"/docs/rules/{page}" + (f"#{anchor}" if anchor else "")


def source(page: str, anchor: str = "") -> str:
    """The same, as a link between the Markdown files of ``docs/`` (``rules/sevens.md#goal``)."""
    return f"rules/{page or 'README'}.md" + (f"#{anchor}" if anchor else "")


def _link(section: str, href: Callable[[str, str], str]) -> str:
    if section in GUIDE_PAGES:
        page, words = GUIDE_PAGES[section]
        url = f"/docs/guide/{page}" if href is served else f"guide/{page}.md"
        return f"[every game: {words}]({url})"
    page, anchor, words = RULES_PAGES.get(section) or RULES_PAGES[section.split(".")[0]]
    if not page:  # every game's: the index page
        return f"[{words}]({href(page, anchor)})"
    game = next(g.title for g in GAMES.values() if g.rules == page)
    title = words if words in (game,) else f"{game}: {words}"
    return f"[{title}]({href(page, anchor)})"


def link_rules(text: str, href: Callable[[str, str], str] = served) -> str:
    """``text`` with each citation of the rule book (``RULES.md 2.4``,
    ``RULES.md 2.9, 3.6``) made a Markdown link to the rules page that explains
    it; ``href(page, anchor)`` makes the URL (default: the served page)."""

    def cite(match: re.Match[str]) -> str:
        sections = [match.group(1), *re.findall(r"\d+(?:\.\d+)?", match.group(2))]
        return ", ".join(_link(s, href) for s in sections)

    return _CITATION.sub(cite, text)
