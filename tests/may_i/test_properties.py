"""Whole matches with random legal moves through the pure engine: cards
are conserved, no hidden card reaches a public view or event, the stored
form is exact, and scores follow RULES.md 4.8."""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from service.games.may_i import codec, engine, views
from service.games.may_i.melds import hand_value
from service.games.may_i.options import deck_for
from service.games.may_i.simulate import step
from service.games.may_i.state import MatchStatus, Table

from .common import all_cards

CARD = re.compile(r"^(?:[2-9TJQKA][SHDC]|JK)$")
MAX_MOVES = 400


def card_strings(value: Any) -> list[str]:
    """Every string in ``value`` (JSON-ready) that is a card code."""
    if isinstance(value, str):
        return [value] if CARD.match(value) else []
    if isinstance(value, dict):
        return [c for v in value.values() for c in card_strings(v)]
    if isinstance(value, list | tuple):
        return [c for v in value for c in card_strings(v)]
    return []


def public_cards(table: Table) -> set[str]:
    rnd = table.round
    if rnd is None:
        return set()
    return set(rnd.pile) | {c for m in rnd.melds for c in m.cards}


def random_move(table: Table, rng: random.Random, now: int) -> tuple[Table, int, list[Any]]:
    """Mostly the bot's move; sometimes another legal one (any discard the
    rules allow, a decline, a done)."""
    rnd = table.round
    assert rnd is not None
    seat = rnd.on_turn
    allowed = views.allowed_moves(table, seat)
    if rng.random() < 0.25 and "discard" in allowed:
        choices = views.seat_view(table, seat, now)["discardable"]
        t = engine.turn(table, rnd.number, rnd.move, seat, "discard", rng.choice(choices), now)
        return t.table, now + 1, list(t.events)
    if rng.random() < 0.2 and "decline" in allowed:
        t = engine.turn(table, rnd.number, rnd.move, seat, "decline", None, now)
        return t.table, now + 1, list(t.events)
    return step(table, rng, now)


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    seats=st.integers(3, 8),
    variant=st.sampled_from(["may-i", "may-i-jokers"]),
    ending=st.sampled_from(["immediate", "lay-off-round", "play-out"]),
    window=st.sampled_from([0, 5000]),
)
def test_whole_matches(seed: int, seats: int, variant: str, ending: str, window: int) -> None:
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(seats)]
    table = engine.create_table(
        variant, {"ending": ending, "may_i_window_ms": window}, names, seed % seats, rng
    ).table
    deck = Counter(deck_for(table.options))
    now = 0
    results = []
    while table.match_status is MatchStatus.IN_PROGRESS:
        t = engine.start_round(table, rng, now, {})
        table = t.table
        assert all_cards(table) == deck
        while (rnd := table.round) is not None and rnd.playing:
            if rnd.taken > MAX_MOVES:
                table = engine.finish(table, now).table
                break
            before = public_cards(table)
            table, now, events = random_move(table, rng, now)
            assert all_cards(table) == deck
            after = public_cards(table)
            for event in events:
                assert set(card_strings(event)) <= before | after, event
                if event["type"] == "stock-drawn":
                    assert set(event) == {"type", "round", "move", "seat", "count"}
            view = views.public_view(table, now)
            assert set(card_strings(view)) <= after | before
            assert codec.decode(codec.encode(table)) == table
        rnd = table.round
        assert rnd is not None and rnd.result is not None
        r = rnd.result
        if not r.abandoned:
            results.append(r)
            assert table.last == r
            for s in range(seats):
                expected = 20 if s == r.out else -hand_value(rnd.hands[s])
                assert r.points[s] == expected
    assert table.played == len(results)
    assert table.points == tuple(sum(r.points[s] for r in results) for s in range(seats))
    if table.match_status is MatchStatus.WON:
        assert len(results) == 5
        best = max(table.points)
        assert table.match_winners == tuple(s for s in range(seats) if table.points[s] == best)
