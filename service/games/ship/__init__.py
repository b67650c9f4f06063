"""My Ship Sails and its family (RULES.md 2): pure Python, no Flask, no Redis, no I/O.

Modules: :mod:`.options` (RULES.md 2.2, 2.9), :mod:`.state` (frozen states),
:mod:`.engine` (transitions), :mod:`.deal` (deal, deal check, 2.4),
:mod:`.passing` (exchanges, 2.5), :mod:`.settlement` (winning hands, 2.6-2.7),
:mod:`.scoring` (rounds and the match, 2.8), :mod:`.views` (who sees what),
:mod:`.codec` (the stored form). The game's moves (passes, claims) have their
own endpoints; everything else goes through :data:`GAME`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import Game, Shuffler, Simulation, Transition, refuse_foreign_members
from ..errors import RuleViolation, register_codes
from . import codec, engine, players, simulate, views
from .deal import validate_deal
from .options import OPTION_SCHEMAS, PRESETS, deck_for, resolve_options
from .scoring import result_dict
from .state import RoundStatus, Table

NAME = "my-ship-sails"

register_codes(
    {},
    rules={
        "pass-invalid": "my-ship-sails#passing",
        "stale-exchange": "my-ship-sails#passing",
        "hand-invalid": "my-ship-sails#declaring",
        "claim-not-winning": "my-ship-sails#declaring",
        "declaration-automatic": "my-ship-sails#declaring",
        "claim-window-closed": "my-ship-sails#claim-window",
    },
)


def start_round(table: Table, rng: Shuffler, now_ms: int, deal: Mapping[str, Any]) -> Transition:
    """Deal the next round (:func:`.engine.start_round`); ``deal`` may hold
    ``hands`` (a submitted deal) and nothing else of use to this game."""
    _only_hands(deal)
    return engine.start_round(table, rng, now_ms, deal.get("hands"))


def check_deal(
    variant: str, overrides: Mapping[str, Any], players: int, deal: Mapping[str, Any]
) -> dict[str, Any]:
    """Whether ``deal["hands"]`` is a valid deal (RULES.md 2.4): ``{"valid",
    "problems", "hands"}``. Raises ``options-invalid`` for options that are not
    one game."""
    options = resolve_options(variant, overrides, players)
    _only_hands(deal)
    try:
        hands = validate_deal(options, players, deal.get("hands") or [])
    except RuleViolation as violation:
        problems = [{"pointer": e.pointer, "detail": e.detail} for e in violation.errors]
        return {"valid": False, "problems": problems, "hands": None}
    return {"valid": True, "problems": [], "hands": [list(h) for h in hands]}


DEAL_MEMBERS = ("hands",)
"""What a submitted deal of My Ship Sails reads (RULES.md 2.4)."""


def starting_deck(table: Table) -> tuple[str, ...]:
    """The deck a round's shuffle starts from (RULES.md 2.3, 5.2): the
    table's deck for its seats, in the standard order."""
    return deck_for(table.options, table.seats)


def ended_round(table: Table) -> dict[str, Any] | None:
    """The round the host ended before it was over (cancelled, not listed:
    RULES.md 2.8), with ``abandoned: true``; ``None`` otherwise."""
    rnd = table.round
    result = None if rnd is None else rnd.result
    if rnd is None or rnd.status is not RoundStatus.OVER or result is None:
        return None
    if result.settled_by != "abandoned" or rnd.number <= table.played:
        return None
    return {**result_dict(result), "abandoned": True}


RECORD_LAYOUTS = {"pass": ("exchange", "cards"), "claim": (), "finish": ()}
"""Each recorded move's arguments in order (``Game.record_layouts``). Frozen."""


def _only_hands(deal: Mapping[str, Any]) -> None:
    """Refuse the members of a deal that other games read."""
    refuse_foreign_members(deal, "My Ship Sails", DEAL_MEMBERS)


GAME = Game(
    name=NAME,
    title="My Ship Sails",
    rules="my-ship-sails",
    presets={p.name: p.info() for p in PRESETS.values()},
    create_table=engine.create_table,
    start_round=start_round,
    finish=engine.finish,
    public_view=views.public_view,
    seat_view=views.seat_view,
    check_deal=check_deal,
    encode=codec.encode,
    decode=codec.decode,
    event_layouts=codec.EVENT_LAYOUTS,
    simulation=Simulation(
        play=simulate.play,
        summary=simulate.summary,
        player_counts=simulate.player_counts,
        markdown=simulate.markdown,
    ),
    legacy_event_codes=codec.LEGACY_EVENT_CODES,
    step_of=engine.step_of,
    fold_choices=engine.fold_choices,
    due=engine.settle_due,
    due_at=engine.due_at,
    rounds_of=codec.rounds_of,
    round_result=codec.round_result,
    replay_move=players.replay_move,
    recorded_move=players.recorded_move,
    default_move=players.default_move,
    turn_of=players.turn_of,
    bot_move=players.bot_move,
    option_schemas=OPTION_SCHEMAS,
    deal_members=DEAL_MEMBERS,
    starting_deck=starting_deck,
    ended_round=ended_round,
    record_layouts=RECORD_LAYOUTS,
)
