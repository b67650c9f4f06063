"""Property tests of the engine: random legal (and some illegal) moves from
random deals of every preset, with the invariants of RULES.md 2 checked after
every step."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.games.errors import RuleViolation
from service.games.ship import engine
from service.games.ship.options import PRESETS, deck_for
from service.games.ship.passing import hand_sizes, swaps_before_showdown
from service.games.ship.settlement import winning_suits
from service.games.ship.state import MatchStatus, RoundResult, RoundStatus, Table


def check_invariants(table: Table, deck: Counter[str], results: list[RoundResult]) -> None:
    """``results``: every finished round's result so far (the state keeps the last)."""
    rnd = table.round
    assert rnd is not None
    o = table.options
    # Cards are conserved; none is in two places.
    cards = [c for h in rnd.hands for c in h] + list(rnd.set_aside)
    assert Counter(cards) == deck
    # Hand sizes follow the mode's pattern (RULES.md 2.5): restored after every
    # simultaneous exchange and swap; in a chain, first passer -1, seat on turn +1.
    sizes = hand_sizes(o, table.seats, rnd.dealer, rnd.exchanges_resolved)
    assert [len(h) for h in rnd.hands] == sizes
    # One exchange resolves at a time, in order; a round ends exactly when the
    # rules say: a winning hand under automatic, max_exchanges, the swap circuits.
    if rnd.status is RoundStatus.PASSING:
        assert rnd.exchange.number == rnd.exchanges_resolved + 1
        if o.declaration == "automatic":
            assert not any(winning_suits(h, o.win_count) for h in rnd.hands)
        if o.max_exchanges is not None:
            assert rnd.exchanges_resolved < o.max_exchanges
        swaps = swaps_before_showdown(o, table.seats)
        assert swaps is None or rnd.exchanges_resolved < swaps
    elif rnd.result is not None and rnd.result.settled_by not in ("abandoned",):
        result = rnd.result
        if result.settled_by.startswith("showdown"):
            # Foster's showdown shows every hand (RULES.md 2.9).
            assert [s for s, _ in result.hands] == list(range(table.seats))
            assert o.passing == "swap"
        elif result.settled_by == "void":
            assert o.max_exchanges is not None and result.exchanges == o.max_exchanges
        else:
            # Won by declaration (manual) or by a winning hand (automatic), and
            # every winner holds win_count of a suit.
            assert result.winners
            assert all(winning_suits(h, o.win_count) for _, h in result.hands)
            if o.declaration == "manual":
                assert {c.seat for c in rnd.claims} == {s for s, _ in result.hands}
        assert result.exchanges == rnd.exchanges_resolved
    # Scores add up: wins, points, and chips that sum to zero.
    assert table.points == tuple(w + (s in table.fastest_win) for s, w in enumerate(table.wins))
    assert sum(table.chips) == 0
    assert table.played == len(results) and table.last == (results[-1] if results else None)
    assert table.chips == tuple(
        sum(r.chips[s] for r in results if r.chips) for s in range(table.seats)
    )
    if o.chips:
        assert all(len(r.chips) == table.seats for r in results if r.winners)
    # Scores add up: each round win is one point to each of its winners.
    assert sum(table.wins) == sum(len(r.winners) for r in results)
    assert all(set(r.winners) <= {s for s, _ in r.hands} or not r.hands for r in results)
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
            roll = rng.random()
            # Mostly a seat that is awaited; sometimes any seat (maybe refused).
            awaited = rnd.exchange.waiting_for
            seat = rng.choice(awaited) if awaited and rng.random() < 0.9 else rng.randrange(seats)
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
                    expected = {"stale-exchange", "pass-invalid", "not-your-turn"}
                elif roll >= 0.08:
                    expected = {"not-your-turn"}
                    assert seat not in rnd.exchange.choosers
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


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=25, deadline=None)
@given(
    seed=GAMES["seed"],
    declaration=GAMES["declaration"],
    max_exchanges=GAMES["max_exchanges"],
)
def test_random_games_of_every_preset_keep_the_invariants(
    preset: str, seed: int, declaration: str, max_exchanges: int | None
) -> None:
    results: dict[int, RoundResult] = {}
    for table, deck in play_randomly(seed, preset, declaration, max_exchanges):
        if table.last is not None:
            results[table.last.round] = table.last
        check_invariants(table, deck, list(results.values()))
