"""Sevens rounds played by the bot for every seat through the pure engine
(no HTTP, no Redis), summed up for ``referee simulate``.

Results depend only on the arguments: the deals and the bot's tie-breaks
come from one :class:`random.Random` seeded with ``seed``.
"""

from __future__ import annotations

import json
import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from types import MappingProxyType
from typing import Any

from ..base import percent
from . import engine
from .options import PRESETS
from .players import bot
from .state import RoundStatus, Table


@dataclass(frozen=True, slots=True)
class Summary:
    """The figures of one variant at one table size.

    ``turns`` are the moves a round took (plays and passes); ``passes``
    the passes per round (``voluntary_passes`` of them voluntary);
    ``wins_by_position`` counts round wins by seat offset from the opener
    (index 0 is the opener, 1 its left neighbour, and so on)."""

    variant: str
    players: int
    rounds: int
    seed: int
    mean_turns: float
    p50_turns: int
    p90_turns: int
    max_turns: int
    passes_per_round: float
    voluntary_passes_per_round: float
    pot_per_round: float
    wins_by_position: list[int]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of every figure."""
        return asdict(self)


def play_round(table: Table, rng: random.Random) -> Table:
    """Deal and play one round to its end with the bot for every seat."""
    table = engine.start_round(table, rng, 0, {}).table
    while (rnd := table.round) is not None and rnd.status is RoundStatus.PLAYING:
        seat = rnd.on_turn
        assert seat is not None
        move = bot(table, seat, rng)
        if move["action"] == "pass":
            table = engine.pass_turn(table, rnd.number, rnd.turn, seat, 0).table
        else:
            table = engine.play(
                table, rnd.number, rnd.turn, seat, move["card"], move["last_card"], 0
            ).table
    return table


def _quantile(values: Sequence[int], q: float) -> int:
    return values[min(len(values) - 1, int(q * len(values)))]


@dataclass(frozen=True, slots=True)
class RoundFacts:
    """What one simulated round came to: its moves, passes (voluntary ones
    apart), the winner's place from the opener, and the pot."""

    turns: int
    passes: int
    voluntary: int
    position: int
    pot: int


def play(
    variant: str,
    players: int,
    rounds: int,
    seed: int,
    options: Mapping[str, Any] = MappingProxyType({}),
    progress: Callable[[], None] = lambda: None,
) -> list[RoundFacts]:
    """Play ``rounds`` rounds of ``variant`` at a table of ``players`` (an
    open match, so the dealer moves on every round); what each round came
    to, in order (:func:`summary` sums them up, also those of several runs).
    Raises :class:`~service.games.errors.RuleViolation` for a variant or
    table size the preset does not allow, ``ValueError`` for ``rounds`` < 1."""
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(players)]
    table = engine.create_table(variant, {"match": {"open": True}}, names, 0, rng).table
    facts = []
    for _ in range(rounds):
        table = play_round(table, rng)
        rnd = table.round
        assert rnd is not None and rnd.result is not None and rnd.result.winner is not None
        facts.append(
            RoundFacts(
                turns=len(rnd.moves),
                passes=sum(m in ("P", "V") for m in rnd.moves),
                voluntary=rnd.moves.count("V"),
                position=(rnd.result.winner - rnd.opener) % players,
                pot=rnd.result.pot,
            )
        )
        progress()  # once a round: the CLI's progress
    return facts


def summary(
    variant: str, players: int, seed: int, options: Mapping[str, Any], facts: Sequence[RoundFacts]
) -> Summary:
    """The figures of ``facts`` (:func:`play`'s rounds, of one run or
    several; this game's simulation has no ``options``)."""
    ordered = sorted(f.turns for f in facts)
    by_position = [0] * players
    for f in facts:
        by_position[f.position] += 1
    return Summary(
        variant=variant,
        players=players,
        rounds=len(facts),
        seed=seed,
        mean_turns=round(statistics.fmean(f.turns for f in facts), 2),
        p50_turns=_quantile(ordered, 0.5),
        p90_turns=_quantile(ordered, 0.9),
        max_turns=ordered[-1],
        passes_per_round=round(statistics.fmean(f.passes for f in facts), 2),
        voluntary_passes_per_round=round(statistics.fmean(f.voluntary for f in facts), 2),
        pot_per_round=round(statistics.fmean(f.pot for f in facts), 2),
        wins_by_position=by_position,
    )


def player_counts(variant: str, wanted: Sequence[int]) -> list[int]:
    """The table sizes of ``wanted`` that ``variant`` allows."""
    return [n for n in wanted if PRESETS[variant].allows(n)]


def markdown(summaries: Sequence[Summary]) -> str:
    """A Markdown table, one line per variant and table size."""
    lines = [
        "| variant | players | rounds | mean turns | p50 / p90 / max | passes per round "
        "| voluntary | pot | wins by seat from the opener |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        wins = " ".join(percent(w, s.rounds) for w in s.wins_by_position)
        lines.append(
            f"| {s.variant} | {s.players} | {s.rounds} | {s.mean_turns} "
            f"| {s.p50_turns} / {s.p90_turns} / {s.max_turns} | {s.passes_per_round} "
            f"| {s.voluntary_passes_per_round} | {s.pot_per_round} | {wins} |"
        )
    return "\n".join(lines) + "\n"


def as_json(summaries: Sequence[Summary]) -> str:
    """Every summary as one JSON document."""
    return json.dumps([s.to_json() for s in summaries], indent=2) + "\n"
