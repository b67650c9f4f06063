"""``referee simulate``: simple automatic players play rounds through the pure
engine (no HTTP, no Redis), and the figures of many rounds are summed up.

Every automatic player is ``basic`` (:mod:`.players`): it keeps its longest
suit (ties: the suit with the higher cards, then suit order S H D C) and
passes the lowest card of its shortest other suit. A seat holding a winning
hand declares at once; when several do after the same exchange they declare
in a seeded random order, all within one instant (so a claim window counts
them as simultaneous). Players never declare under ``automatic``. A round
that reaches ``max_exchanges`` (200 by default; two players aiming at the
same suit can block each other forever) is void. Results depend only on the
arguments: the deals come from a :class:`random.Random` seeded with
``seed``.
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
from .players import choose_cards
from .settlement import winning_suits
from .state import RoundStatus, Table

DEFAULT_MAX_EXCHANGES = 200


@dataclass(frozen=True, slots=True)
class Summary:
    """The figures of one variant at one table size.

    ``exchanges`` are the exchanges each won round took (RULES.md 2.5 units:
    one simultaneous exchange, one chain turn or one swap); ``void`` and
    ``shared`` count rounds; ``wins_by_position`` counts round wins by seat
    position from the dealer's left (index 0) round to the dealer (last).
    """

    variant: str
    players: int
    rounds: int
    seed: int
    max_exchanges: int
    mean_exchanges: float | None
    percentiles: dict[str, int]
    void: int
    shared: int
    wins_by_position: list[int]
    chips_per_round: float | None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of every figure."""
        return asdict(self)


def play_round(table: Table, rng: random.Random, now_ms: int) -> tuple[Table, int]:
    """Deal and play one round to its end; returns the table and the clock."""
    table = engine.start_round(table, rng, now_ms).table
    manual = table.options.declaration == "manual"
    while True:
        rnd = table.round
        assert rnd is not None
        if rnd.status is not RoundStatus.PASSING:
            break
        winning = [s for s, h in enumerate(rnd.hands) if winning_suits(h, table.options.win_count)]
        if manual and winning:
            rng.shuffle(winning)
            for seat in winning:
                round_now = table.round
                assert round_now is not None
                if round_now.status is RoundStatus.OVER:
                    break
                table = engine.claim(table, rnd.number, seat, now_ms).table
            now_ms += table.options.claim_window_ms + 1
            table = engine.settle_due(table, now_ms).table
            break
        exchange = rnd.exchange
        for seat in exchange.waiting_for:
            cards = choose_cards(rnd.hands[seat], table.options.pass_count)
            table = engine.choose_pass(
                table, rnd.number, exchange.number, seat, cards, now_ms
            ).table
        now_ms += 1
    return table, now_ms


def play(
    variant: str,
    players: int,
    rounds: int,
    seed: int,
    options: Mapping[str, Any] = MappingProxyType({}),
    progress: Callable[[], None] = lambda: None,
) -> list[RoundFacts]:
    """Play ``rounds`` rounds of ``variant`` at a table of ``players`` (an open
    match, so the dealer moves on every round); what each round came to, in
    order (:func:`summary` sums them up, also those of several runs). Raises
    :class:`~service.games.errors.RuleViolation` for a variant or table size
    the preset does not allow. ``options``: ``max_exchanges`` (a round with
    no winner after that many is void, :data:`DEFAULT_MAX_EXCHANGES`)."""
    rng = random.Random(seed)
    max_exchanges = options.get("max_exchanges", DEFAULT_MAX_EXCHANGES)
    overrides = {"match": {"open": True}, "max_exchanges": max_exchanges}
    names = [f"P{i}" for i in range(players)]
    table = engine.create_table(variant, overrides, names, 0, rng).table
    now_ms = 0
    facts = []
    for _ in range(rounds):
        table, now_ms = play_round(table, rng, now_ms)
        r = table.last
        assert r is not None
        chips = max(r.chips) if table.options.chips and r.chips else None
        facts.append(RoundFacts(r.exchanges, tuple(r.winners), r.dealer, chips))
        progress()  # once a round: the CLI's progress
    return facts


@dataclass(frozen=True, slots=True)
class RoundFacts:
    """What one simulated round came to: its exchanges, its winners, its
    dealer, and the most chips a seat won (``None`` without chips)."""

    exchanges: int
    winners: tuple[int, ...]
    dealer: int
    chips: int | None


def summary(
    variant: str, players: int, seed: int, options: Mapping[str, Any], facts: Sequence[RoundFacts]
) -> Summary:
    """The figures of ``facts`` (:func:`play`'s rounds with ``options``, of
    one run or several)."""
    max_exchanges = options.get("max_exchanges", DEFAULT_MAX_EXCHANGES)
    rounds = len(facts)
    won = [f for f in facts if f.winners]
    exchanges = sorted(f.exchanges for f in won)
    by_position = [0] * players
    for f in won:
        for seat in f.winners:
            by_position[(seat - f.dealer - 1) % players] += 1
    percentiles: dict[str, int] = {}
    if exchanges:
        for name, q in (("p10", 0.1), ("p50", 0.5), ("p90", 0.9), ("max", 1.0)):
            percentiles[name] = exchanges[min(len(exchanges) - 1, int(q * len(exchanges)))]
    chipped = [f.chips for f in facts if f.chips is not None]
    chips = sum(chipped) / rounds if PRESETS[variant].options.chips else None
    return Summary(
        variant=variant,
        players=players,
        rounds=rounds,
        seed=seed,
        max_exchanges=max_exchanges,
        mean_exchanges=round(statistics.fmean(exchanges), 2) if exchanges else None,
        percentiles=percentiles,
        void=rounds - len(won),
        shared=sum(1 for f in won if len(f.winners) > 1),
        wins_by_position=by_position,
        chips_per_round=None if chips is None else round(chips, 2),
    )


def player_counts(variant: str, wanted: Sequence[int]) -> list[int]:
    """The table sizes of ``wanted`` that ``variant`` allows (RULES.md 2.9)."""
    return [n for n in wanted if PRESETS[variant].allows(n)]


def markdown(summaries: Sequence[Summary]) -> str:
    """A Markdown table, one line per variant and table size."""
    lines = [
        "| variant | players | rounds | mean exchanges to a win | p10 / p50 / p90 / max "
        "| void | shared | wins by seat from the dealer's left |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        p = s.percentiles
        spread = " / ".join(str(p[k]) for k in ("p10", "p50", "p90", "max")) if p else "-"
        wins = " ".join(percent(w, s.rounds) for w in s.wins_by_position)
        lines.append(
            f"| {s.variant} | {s.players} | {s.rounds} | {s.mean_exchanges} | {spread} "
            f"| {percent(s.void, s.rounds)} | {percent(s.shared, s.rounds)} | {wins} |"
        )
    return "\n".join(lines) + "\n"


def as_json(summaries: Sequence[Summary]) -> str:
    """Every summary as one JSON document."""
    return json.dumps([s.to_json() for s in summaries], indent=2) + "\n"
