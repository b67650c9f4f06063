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

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..base import Game, Simulation, refuse_foreign_members
from . import codec, engine, players, simulate, views
from .checks import check_deal, check_play
from .options import OPTION_SCHEMAS, PRESETS, SEAT_RANGE

NAME = "sevens"


def _play(
    variant: str,
    players: int,
    rounds: int,
    seed: int,
    options: Mapping[str, Any],
    progress: Callable[[], None],
) -> list[simulate.RoundFacts]:
    """``referee simulate``'s rounds (:func:`.simulate.play`)."""
    return simulate.play(variant, players, rounds, seed, progress=progress)


def _summary(
    variant: str,
    players: int,
    seed: int,
    options: Mapping[str, Any],
    facts: Sequence[simulate.RoundFacts],
) -> simulate.Summary:
    """``referee simulate``'s figures (:func:`.simulate.summary`)."""
    return simulate.summary(variant, players, seed, facts)


DEAL_MEMBERS = ("hands", "dealer", "opening_suit")
"""What a submitted deal of Sevens reads (RULES.md 3.2, 3.4)."""


def _start_round(table: Any, rng: Any, now_ms: int, deal: Mapping[str, Any]) -> Any:
    """``engine.start_round``, refusing another game's deal members."""
    refuse_foreign_members(deal, "Sevens", DEAL_MEMBERS)
    return engine.start_round(table, rng, now_ms, deal)


def _check_deal(
    variant: str, overrides: Mapping[str, Any], players: int, deal: Mapping[str, Any]
) -> dict[str, Any]:
    """``check_deal``, refusing another game's deal members."""
    refuse_foreign_members(deal, "Sevens", DEAL_MEMBERS)
    return check_deal(variant, overrides, players, deal)


GAME = Game(
    name=NAME,
    title="Sevens",
    rules="sevens",
    presets={p.name: p.info() for p in PRESETS.values()},
    create_table=engine.create_table,
    start_round=_start_round,
    finish=engine.finish,
    public_view=views.public_view,
    seat_view=views.seat_view,
    check_deal=_check_deal,
    deal_members=DEAL_MEMBERS,
    encode=codec.encode,
    decode=codec.decode,
    event_layouts=codec.EVENT_LAYOUTS,
    legacy_event_codes=codec.LEGACY_EVENT_CODES,
    simulation=Simulation(
        play=_play,
        summary=_summary,
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
)

__all__ = ["GAME", "NAME", "check_deal", "check_play"]
