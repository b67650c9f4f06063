"""THE referee: one pure package per game behind one small interface.

:class:`~.base.Game` is the interface; this module is the registry. The API,
the storage, the CLI, the metrics and the bench find a table's game here, by
the table's variant (preset names are unique across games), and never import a
game's modules for anything but that game's own move endpoints.

Shared by every game: :mod:`.cards` (card codes, decks, multisets),
:mod:`.base` (transitions, the random source, the first-dealer draw, dealing
order, leaders), :mod:`.errors` (refusals with stable codes), :mod:`.codec`
(the stored form of any game's state and events).
"""

from __future__ import annotations

from typing import Any

from .base import Game, PresetInfo
from .errors import FieldError, RuleViolation
from .may_i import GAME as MAY_I
from .sevens import GAME as SEVENS
from .ship import GAME as SHIP

__all__ = ["GAMES", "MAY_I", "SEVENS", "SHIP", "VARIANTS", "Game", "game_of", "game_of_variant"]

GAMES: dict[str, Game] = {g.name: g for g in (SHIP, SEVENS, MAY_I)}
"""Every game, by its wire name."""

VARIANTS: dict[str, tuple[Game, PresetInfo]] = {}
for _game in GAMES.values():
    for _preset in _game.presets.values():
        if _preset.name in VARIANTS:  # pragma: no cover - a programming error
            raise RuntimeError(f"preset {_preset.name!r} is in two games")
        VARIANTS[_preset.name] = (_game, _preset)


def game_of_variant(variant: str) -> Game:
    """The game a preset belongs to; raises ``unknown-variant`` (RuleViolation)."""
    found = VARIANTS.get(variant)
    if found is None:
        raise RuleViolation(
            "unknown-variant",
            f"There is no variant {variant!r}; known: {', '.join(VARIANTS)}.",
            [FieldError("/variant", f"unknown variant {variant!r}")],
        )
    return found[0]


def game_of(table: Any) -> Game:
    """The game of a table state (by its ``variant``)."""
    return VARIANTS[table.variant][0]
