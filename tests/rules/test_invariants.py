"""Property tests of the engine: random legal (and some illegal) moves from
random deals of every preset, with the invariants of RULES.md 2 checked after
every step."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from service.rules import engine
from service.rules.errors import RuleViolation
from service.rules.options import PRESETS, deck_for
from service.rules.settlement import winning_suits
from service.rules.state import MatchStatus, RoundStatus, Table


def check_invariants(table: Table, deck: Counter[str]) -> None:
    rnd = table.round
    assert rnd is not None
    o = table.options
    # Cards are conserved; none is in two places.
    cards = [c for h in rnd.hands for c in h] + list(rnd.set_aside)
    assert Counter(cards) == deck
    # Hand sizes are restored after every exchange and never change inside one.
    assert all(len(h) == o.hand_size for h in rnd.hands)
    # One exchange resolves at a time, in order.
    if rnd.status is RoundStatus.PASSING:
        assert rnd.exchange.number == len(rnd.passes) + 1
        if o.declaration == "automatic":
            assert not any(winning_suits(h, o.win_count) for h in rnd.hands)
        if o.max_exchanges is not None:
            assert len(rnd.passes) < o.max_exchanges
    # Scores add up: each round win is one point to each of its winners.
    assert sum(table.wins) == sum(len(r.winners) for r in table.results)
    assert all(set(r.winners) <= {s for s, _ in r.hands} or not r.hands for r in table.results)
    if o.match.kind == "target_wins" and table.match_status is MatchStatus.IN_PROGRESS:
        assert max(table.wins) < (o.match.count or 0)


def play_randomly(
    seed: int, preset: str, declaration: str, max_exchanges: int | None
) -> Iterator[tuple[Table, Counter[str]]]:
    """Up to three rounds of random moves (5% claims, 3% wrong passes that
    must be refused and change nothing); yields every state with its deck."""
    rng = random.Random(seed)
    p = PRESETS[preset]
    seats = rng.randint(p.min_seats, p.max_seats)
    overrides = {"declaration": declaration, "max_exchanges": max_exchanges}
    table = engine.create_table(preset, overrides, [f"P{i}" for i in range(seats)], None, rng).table
    now = 0
    for _round in range(3):
        if table.match_status is not MatchStatus.IN_PROGRESS:
            break
        table = engine.start_round(table, rng, now).table
        deck = Counter(deck_for(table.options, seats))
        yield table, deck
        for _step in range(400):
            rnd = table.round
            assert rnd is not None
            if rnd.status is not RoundStatus.PASSING:
                break
            now += rng.randint(0, 400)
            seat = rng.randrange(seats)
            roll = rng.random()
            before = table
            try:
                if roll < 0.05:
                    table = engine.claim(table, rnd.number, seat, now).table
                elif roll < 0.08:  # a stale or wrong move must change nothing
                    bad = rng.choice(["stale", "foreign"])
                    number = rnd.exchange.number + (1 if bad == "stale" else 0)
                    foreign = [c for c in deck if c not in rnd.hands[seat]]
                    engine.choose_pass(
                        table, rnd.number, number, seat, foreign[: table.options.pass_count], now
                    )
                    raise AssertionError("a wrong pass was accepted")
                else:
                    cards = rng.sample(rnd.hands[seat], table.options.pass_count)
                    table = engine.choose_pass(
                        table, rnd.number, rnd.exchange.number, seat, cards, now
                    ).table
            except RuleViolation as refused:
                expected = {"claim-not-winning", "declaration-automatic"}
                if 0.05 <= roll < 0.08:
                    expected = {"stale-exchange", "pass-invalid"}
                assert refused.code in expected
                assert table is before
            yield table, deck
        # A claim window closes by itself once its time has passed.
        table = engine.settle_due(table, now + 60_001).table
        assert table.round is not None
        if table.round.status is RoundStatus.PASSING:
            table = engine.finish(table, now).table
        yield table, deck


GAMES = {
    "seed": st.integers(0, 2**32),
    "preset": st.sampled_from(sorted(PRESETS)),
    "declaration": st.sampled_from(["manual", "automatic"]),
    "max_exchanges": st.sampled_from([None, 3, 12]),
}


@settings(max_examples=60, deadline=None)
@given(**GAMES)
def test_random_games_keep_the_invariants(
    seed: int, preset: str, declaration: str, max_exchanges: int | None
) -> None:
    for table, deck in play_randomly(seed, preset, declaration, max_exchanges):
        check_invariants(table, deck)
