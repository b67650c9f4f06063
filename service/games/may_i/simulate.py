"""May I? matches played by the bot for every seat through the pure engine
(no HTTP, no Redis), summed up for ``referee simulate``. Results depend only
on the arguments: one :class:`random.Random` seeded with ``seed``."""

from __future__ import annotations

import json
import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from types import MappingProxyType
from typing import Any

from . import engine
from .options import PRESETS, ROUNDS
from .players import bot, wants
from .state import MatchStatus, Step, Table

MAX_MOVES = 3000
"""A round still going after this many moves is abandoned (bots that never
go out would reshuffle the stock for ever)."""


@dataclass(frozen=True, slots=True)
class Summary:
    """The figures of one variant at one table size: moves per round (turn
    moves, as numbered; May I? requests and answers not counted), their
    median, 90th percentile and maximum, May I? requests per round, rounds
    won by going out, rounds ended by an empty stock (4.7), rounds abandoned
    at :data:`MAX_MOVES`, and matches played to their fifth round out of
    those begun."""

    variant: str
    players: int
    rounds: int
    seed: int
    mean_moves: float
    p50_moves: int
    p90_moves: int
    max_moves: int
    may_i_per_round: float
    rounds_gone_out: int
    rounds_stock_dry: int
    rounds_abandoned: int
    matches: int
    matches_finished: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def step(table: Table, rng: random.Random, now_ms: int) -> tuple[Table, int, list[dict[str, Any]]]:
    """One move of the bots (a turn, or a May I? request or answer, or
    letting the window close); returns the table, the clock and the events.

    While a discard is offered, the seats that want it (:func:`.players.wants`)
    ask, one of them (drawn with ``rng``) first; then each seat still to
    answer denies if it wants the card itself, else allows, but one in five
    stays silent (silence allows when the window closes, 4.6)."""
    rnd = table.round
    assert rnd is not None and rnd.playing
    if rnd.step is Step.MAY_I and rnd.offer is not None:
        offer = rnd.offer
        if offer.asker is None:
            askers = [
                s
                for s in range(table.seats)
                if s != rnd.on_turn and rnd.pile_by[-1] != s and wants(table, s)
            ]
            if askers:
                seat = rng.choice(askers)
                t = engine.ask(table, rnd.number, offer.n, seat, now_ms)
                return t.table, now_ms, list(t.events)
        else:
            waiting = engine.awaited(table.seats, rnd.on_turn, offer)
            speaking = [s for s in waiting if rng.random() >= 0.2]
            if speaking:
                seat = speaking[0]
                allow = not wants(table, seat)
                t = engine.answer(table, rnd.number, offer.n, seat, allow, now_ms)
                return t.table, now_ms, list(t.events)
        now_ms = offer.until_ms
        t = engine.settle_due(table, now_ms)
        return t.table, now_ms, list(t.events)
    move = bot(table, rnd.on_turn, rng)
    t = engine.turn(
        table, rnd.number, rnd.move, rnd.on_turn, move["action"], move["argument"], now_ms
    )
    return t.table, now_ms + 1, list(t.events)


def play_round(
    table: Table, rng: random.Random, now_ms: int = 0
) -> tuple[Table, int, list[dict[str, Any]]]:
    """Deal and play one round with the bots; abandoned after
    :data:`MAX_MOVES` moves (the match is then over)."""
    t = engine.start_round(table, rng, now_ms, {})
    table, events = t.table, list(t.events)
    while (rnd := table.round) is not None and rnd.playing:
        if rnd.taken >= MAX_MOVES:
            t = engine.finish(table, now_ms)
            return t.table, now_ms, events + list(t.events)
        table, now_ms, more = step(table, rng, now_ms)
        events.extend(more)
    return table, now_ms, events


@dataclass(frozen=True, slots=True)
class RoundFacts:
    """What one simulated round came to: its turn moves, its May I?
    requests, how it ended (``out``, ``dry``: the stock ran out, 4.7, or
    ``abandoned`` at :data:`MAX_MOVES`), whether it began a match and
    whether it won the match."""

    moves: int
    asks: int
    ended: str
    began_match: bool
    won_match: bool


def play(
    variant: str,
    players: int,
    rounds: int,
    seed: int,
    options: Mapping[str, Any] = MappingProxyType({}),
    progress: Callable[[], None] = lambda: None,
) -> list[RoundFacts]:
    """Play matches of ``variant`` at ``players`` seats until ``rounds``
    rounds are played; what each round came to, in order (:func:`summary`
    sums them up, also those of several runs)."""
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(players)]
    facts: list[RoundFacts] = []
    table: Table | None = None
    now = 0
    while len(facts) < rounds:
        began = table is None or table.match_status is not MatchStatus.IN_PROGRESS
        if table is None or began:
            table = engine.create_table(variant, {}, names, 0, rng).table
        table, now, events = play_round(table, rng, now)
        rnd = table.round
        assert rnd is not None and rnd.result is not None
        if rnd.result.abandoned:
            ended = "abandoned"
        elif rnd.result.out is None:
            ended = "dry"
        else:
            ended = "out"
        facts.append(
            RoundFacts(
                moves=rnd.taken,
                asks=sum(e["type"] == "may-i-asked" for e in events),
                ended=ended,
                began_match=began,
                won_match=table.match_status is MatchStatus.WON,
            )
        )
        progress()  # once a round: the CLI's progress
    return facts


def summary(
    variant: str, players: int, seed: int, options: Mapping[str, Any], facts: Sequence[RoundFacts]
) -> Summary:
    """The figures of ``facts`` (:func:`play`'s rounds, of one run or
    several; this game's simulation has no ``options``)."""
    ordered = sorted(f.moves for f in facts)
    return Summary(
        variant=variant,
        players=players,
        rounds=len(facts),
        seed=seed,
        mean_moves=round(statistics.fmean(ordered), 2),
        p50_moves=ordered[len(ordered) // 2],
        p90_moves=ordered[min(len(ordered) - 1, len(ordered) * 9 // 10)],
        max_moves=ordered[-1],
        may_i_per_round=round(statistics.fmean(f.asks for f in facts), 2),
        rounds_gone_out=sum(f.ended == "out" for f in facts),
        rounds_stock_dry=sum(f.ended == "dry" for f in facts),
        rounds_abandoned=sum(f.ended == "abandoned" for f in facts),
        matches=sum(f.began_match for f in facts),
        matches_finished=sum(f.won_match for f in facts),
    )


def player_counts(variant: str, wanted: Sequence[int]) -> list[int]:
    """The table sizes of ``wanted`` that ``variant`` allows."""
    return [n for n in wanted if PRESETS[variant].allows(n)]


def markdown(summaries: Sequence[Summary]) -> str:
    """A Markdown table, one line per variant and table size."""
    lines = [
        "| variant | players | rounds | mean moves | p50 / p90 / max | May I? per round "
        "| gone out | stock dry | abandoned | matches finished |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        lines.append(
            f"| {s.variant} | {s.players} | {s.rounds} | {s.mean_moves} "
            f"| {s.p50_moves} / {s.p90_moves} / {s.max_moves} | {s.may_i_per_round} "
            f"| {s.rounds_gone_out} | {s.rounds_stock_dry} | {s.rounds_abandoned} "
            f"| {s.matches_finished} of {s.matches} |"
        )
    return "\n".join(lines) + "\n"


def as_json(summaries: Sequence[Summary]) -> str:
    return json.dumps([s.to_json() for s in summaries], indent=2) + "\n"


__all__ = [
    "ROUNDS",
    "RoundFacts",
    "Summary",
    "markdown",
    "play",
    "play_round",
    "player_counts",
    "step",
    "summary",
]
