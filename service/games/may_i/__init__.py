"""May I? (contract rummy), the project's rule book section 4: pure Python,
no Flask, no Redis, no I/O.

Modules: :mod:`.options` (options and presets), :mod:`.melds` (sets, runs,
jokers, contracts, lay-offs, card values), :mod:`.state` (frozen states),
:mod:`.engine` (the deal and every transition: :func:`~.engine.turn`,
:func:`~.engine.ask`, :func:`~.engine.answer`, :func:`~.engine.settle_due`),
:mod:`.views`, :mod:`.codec`, :mod:`.checks` (stateless checks),
:mod:`.players` (bot, default move), :mod:`.simulate`, :mod:`.piles`
(the discard pile a round's record implies). The moves have their
own endpoints; everything else goes through :data:`GAME`.
"""

from __future__ import annotations

from typing import Any

from ..base import Game, Simulation, reading_only
from . import codec, engine, players, scoring, simulate, views
from .checks import check_deal, check_discard, check_lay_down, check_lay_off
from .options import OPTION_SCHEMAS, PRESETS, deck_for
from .piles import reshuffle_piles
from .state import Step, Table

NAME = "may-i"


DEAL_MEMBERS = ("hands", "stock", "discard")
"""What a submitted deal of May I? reads (RULES.md 4.4)."""


def starting_deck(table: Table) -> tuple[str, ...]:
    """The deck a round's shuffle starts from (RULES.md 4.1, 5.2): ``decks``
    copies of the 52 in the standard order, then the jokers."""
    return deck_for(table.options)


def ended_round(table: Table) -> dict[str, Any] | None:
    """The round the host ended before it was over (not scored, not
    listed: RULES.md 4.8), with ``abandoned: true``; ``None`` otherwise."""
    rnd = table.round
    result = None if rnd is None else rnd.result
    if rnd is None or rnd.step is not Step.OVER or result is None or not result.abandoned:
        return None
    return {**scoring.result_json(result), "abandoned": True}


RECORD_LAYOUTS = {
    "turn": ("number", "action", "arg"),
    "ask": ("offer",),
    "answer": ("offer", "allow"),
    "finish": (),
}
"""Each recorded move's arguments in order (``Game.record_layouts``). Frozen."""


GAME = Game(
    name=NAME,
    title="May I?",
    rules="may-i",
    presets={p.name: p.info() for p in PRESETS.values()},
    create_table=engine.create_table,
    start_round=reading_only(DEAL_MEMBERS, "May I?", engine.start_round),
    finish=engine.finish,
    public_view=views.public_view,
    seat_view=views.seat_view,
    check_deal=reading_only(DEAL_MEMBERS, "May I?", check_deal),
    deal_members=DEAL_MEMBERS,
    encode=codec.encode,
    decode=codec.decode,
    event_layouts=codec.EVENT_LAYOUTS,
    simulation=Simulation(
        play=simulate.play,
        summary=simulate.summary,
        player_counts=simulate.player_counts,
        markdown=simulate.markdown,
    ),
    default_move=players.default_move,
    bot=players.bot,
    turn_of=players.turn_of,
    bot_move=players.bot_move,
    step_of=engine.step_of,
    fold_choices=engine.fold_choices,
    due=engine.settle_due,
    due_at=engine.due_at,
    rounds_of=codec.rounds_of,
    round_result=codec.round_result,
    replay_move=players.replay_move,
    recorded_move=players.recorded_move,
    move_step=players.move_step,
    late_move=players.late_move,
    option_schemas=OPTION_SCHEMAS,
    starting_deck=starting_deck,
    reshuffle_piles=reshuffle_piles,
    ended_round=ended_round,
    record_layouts=RECORD_LAYOUTS,
)

__all__ = ["GAME", "NAME", "check_deal", "check_discard", "check_lay_down", "check_lay_off"]
