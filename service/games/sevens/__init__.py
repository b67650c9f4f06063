"""Sevens (Parliament, Fan Tan, Dominoes), the project's rule book section 3:
pure Python, no Flask, no Redis, no I/O.

Modules: :mod:`.options` (options and presets), :mod:`.state` (frozen
states), :mod:`.layout` (rows and playability), :mod:`.deal` (deal, deal
check, opener), :mod:`.engine` (transitions: :func:`~.engine.play`,
:func:`~.engine.pass_turn`), :mod:`.scoring` (round end, match,
standings), :mod:`.views`, :mod:`.codec`, :mod:`.checks` (stateless
checks), :mod:`.players` (bot, default move, round record),
:mod:`.simulate`. The moves have their own endpoints; everything else goes
through :data:`GAME`.
"""

from __future__ import annotations

from ..base import Game, Simulation, reading_only
from . import codec, engine, players, simulate, views
from .checks import check_deal, check_play
from .options import OPTION_SCHEMAS, PRESETS, SEAT_RANGE, deck_for
from .state import Table

NAME = "sevens"


DEAL_MEMBERS = ("hands", "dealer", "opening_suit")
"""What a submitted deal of Sevens reads (RULES.md 3.2, 3.4)."""


def starting_deck(table: Table) -> tuple[str, ...]:
    """The deck a round's shuffle starts from (RULES.md 3.2, 5.2): ``decks``
    copies of the 52 in the standard order, one after the other."""
    return deck_for(table.options)


RECORD_LAYOUTS = {"play": ("turn", "card", "last_card"), "pass": ("turn",), "finish": ()}
"""Each recorded move's arguments in order (``Game.record_layouts``). Frozen."""


GAME = Game(
    name=NAME,
    title="Sevens",
    rules="sevens",
    presets={p.name: p.info() for p in PRESETS.values()},
    create_table=engine.create_table,
    start_round=reading_only(DEAL_MEMBERS, "Sevens", engine.start_round),
    finish=engine.finish,
    public_view=views.public_view,
    seat_view=views.seat_view,
    check_deal=reading_only(DEAL_MEMBERS, "Sevens", check_deal),
    deal_members=DEAL_MEMBERS,
    encode=codec.encode,
    decode=codec.decode,
    event_layouts=codec.EVENT_LAYOUTS,
    legacy_event_codes=codec.LEGACY_EVENT_CODES,
    simulation=Simulation(
        play=simulate.play,
        summary=simulate.summary,
        player_counts=simulate.player_counts,
        markdown=simulate.markdown,
    ),
    default_move=players.default_move,
    bot=players.bot,
    round_record=players.round_record,
    turn_of=players.turn_of,
    bot_move=players.bot_move,
    rounds_of=codec.rounds_of,
    round_result=codec.round_result,
    replay_move=players.replay_move,
    recorded_move=players.recorded_move,
    option_schemas=OPTION_SCHEMAS,
    seat_range=SEAT_RANGE,
    starting_deck=starting_deck,
    record_layouts=RECORD_LAYOUTS,
)

__all__ = ["GAME", "NAME", "check_deal", "check_play"]
