"""The parts of the docs and of the spec that list games, presets and codes,
written from the game registry (:data:`service.games.GAMES`, each game's
presets, :data:`service.games.errors.CODES` and the pages of
:mod:`.problem_pages`) so that they cannot go stale.

A Markdown file of ``docs/`` holds a generated block between
``<!-- BEGIN generated:NAME ... -->`` and ``<!-- END generated:NAME -->``;
:func:`fill` writes its body (``referee docs`` rewrites the files, the service
fills the blocks again as it serves them, and a test compares the two).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

from ..edge import rules_links
from ..games import GAMES, Game
from ..games.errors import CODES, RULES_OF_CODE
from .problem_pages import PAGES, page_of

BLOCK = re.compile(
    r"(?P<open><!-- BEGIN generated:(?P<name>[a-z-]+)[^\n]*-->\n)"
    r"(?P<body>.*?)"
    r"(?P<close><!-- END generated:(?P=name) -->)",
    re.DOTALL,
)


def all_codes() -> list[str]:
    """Every code the service answers: the HTTP layer's and every game's,
    by status, then in the order they were registered."""
    codes = list(dict.fromkeys([*PAGES, *CODES]))
    return sorted(codes, key=lambda c: _status(c))


def _status(code: str) -> int:
    page = page_of(code)
    assert page is not None, code  # every code has a page (tests/api/test_problem_pages.py)
    return page.status


def game_of_code(code: str) -> Game | None:
    """The game whose rules page explains ``code``; None for a code of every game."""
    page = RULES_OF_CODE.get(code, "").partition("#")[0]
    return next((g for g in GAMES.values() if g.rules == page), None)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _players(game: Game) -> str:
    low = min(p.min_players for p in game.presets.values())
    high = max(p.max_players for p in game.presets.values())
    return f"{low} to {high}"


def _presets(game: Game) -> str:
    return ", ".join(f"`{name}`" for name in game.presets)


def _page_title(folder: Path, game: Game) -> str:
    """A rules page's h1 (the game and its other names), else the game's title."""
    path = folder / f"{game.rules}.md"
    if path.is_file():
        for line in path.read_text().splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return game.title


def games_table(folder: Path) -> str:
    """The index of ``docs/rules/``: every game, its page, players and presets."""
    rows = [
        f"| [{_page_title(folder, g)}]({g.rules}.md) | `{g.name}` | {_players(g)} | {_presets(g)} |"
        for g in GAMES.values()
    ]
    return "\n".join(["| game | `game` | players | presets |", "|---|---|---|---|", *rows]) + "\n"


def codes_table() -> str:
    """Every code with its status and meaning, for ``docs/api.md``."""
    rows = []
    for code in all_codes():
        page = page_of(code)
        assert page is not None
        game = game_of_code(code)
        meaning = rules_links.link_rules(page.meaning, rules_links.source)
        where = f"{game.title}: " if game else ""
        rows.append(f"| {page.status} | `{code}` | {where}{_cell(meaning)} |")
    return "\n".join(["| status | code | what it means |", "|---|---|---|", *rows]) + "\n"


def codes_by_status(link: Callable[[str], str]) -> str:
    """Every code by status, each made a link by ``link(code)``, those of one
    game after the shared ones (the spec's list of codes)."""
    by_status: dict[int, list[str]] = {}
    for code in all_codes():
        by_status.setdefault(_status(code), []).append(code)
    rows = []
    for status, codes in by_status.items():
        groups: dict[str, list[str]] = {}
        for code in codes:
            game = game_of_code(code)
            groups.setdefault(f"{game.title}: " if game else "", []).append(link(code))
        cells = "; ".join(where + ", ".join(links) for where, links in groups.items())
        rows.append(f"| {status} | {cells} |")
    return "\n".join(["| status | codes |", "|---|---|", *rows]) + "\n"


def games_summary() -> str:
    """The games and their presets, for the spec's description."""
    rows = [
        f"| {g.title} | `{g.name}` | {_players(g)} | {_presets(g)} | "
        f"[{g.title}]({rules_links.served(g.rules)}) |"
        for g in GAMES.values()
    ]
    header = ["| game | `game` | players | presets (`variant`) | rules |", "|---|---|---|---|---|"]
    return "\n".join([*header, *rows]) + "\n"


def blocks(folder: Path) -> dict[str, str]:
    """Each generated block's body, by name; ``folder`` is ``docs/rules``."""
    return {"games": games_table(folder), "codes": codes_table()}


def fill(text: str, folder: Path) -> str:
    """``text`` with the body of each generated block written anew; a block of
    an unknown name is left as it is."""
    bodies = blocks(folder)

    def write(match: re.Match[str]) -> str:
        if match["name"] not in bodies:
            return match[0]
        # Blank lines round it: a table must not run into the comments.
        return match["open"] + "\n" + bodies[match["name"]] + "\n" + match["close"]

    return BLOCK.sub(write, text)


def stale(files: Iterable[Path], folder: Path) -> list[Path]:
    """The ``files`` whose generated blocks differ from :func:`fill`'s."""
    return [f for f in files if fill(f.read_text(), folder) != f.read_text()]
