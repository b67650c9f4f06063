"""Property tests: whole matches of every preset with random legal moves (and
some refused ones), the invariants of the rule book 3 checked after every
step: cards conserved, the turn moves left, chips conserved, standings, an
exact codec, and no hidden card in any public view or event."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.games import codec as shared_codec
from service.games.base import Transition
from service.games.cards import STANDARD_DECK
from service.games.errors import RuleViolation
from service.games.sevens import codec, engine
from service.games.sevens.layout import playable, row_cards
from service.games.sevens.options import PRESETS
from service.games.sevens.players import bot
from service.games.sevens.state import MatchStatus, RoundStatus, Table
from service.games.sevens.views import may_pass, playable_now, public_view, seat_view

from .common import T0

CARD = re.compile(r'"([2-9TJQKA][SHDC])"')


def public_cards(data: Any) -> set[str]:
    """Every card code in a JSON-ready value."""
    return set(CARD.findall(json.dumps(data)))


def check_table(table: Table) -> None:
    """The invariants that hold between any two moves."""
    o = table.options
    assert sum(table.chips) == 0  # chips conserved: won less paid over the match
    assert shared_codec.decode(shared_codec.encode(table)) == table
    assert codec.encode(table).startswith('{"g":"sevens",')
    rnd = table.round
    view = public_view(table, T0)
    # The options name "7D" as the opening and the first-dealer draw is face
    # up: neither is a hand's card.
    shown = public_cards({k: v for k, v in view.items() if k not in ("options", "draw")})
    if rnd is None:
        assert not shown
        return
    on_layout = [c for row in rnd.layout for c in row_cards(row)]
    deck = Counter(STANDARD_DECK * o.decks)
    assert Counter(c for h in rnd.hands for c in h) + Counter(on_layout) == deck
    hidden = {c for h in rnd.hands for c in h} - set(on_layout)
    assert not shown & hidden
    assert view["seats"][0]["cards"] == len(rnd.hands[0])
    if rnd.status is RoundStatus.PLAYING:
        assert rnd.pot == sum(rnd.paid)
        assert view["round"]["pot"] == rnd.pot
        assert all(rnd.hands)
        assert all(v <= o.voluntary_pass_limit for v in rnd.voluntary)
    standings = [s["seat"] for s in view["standings"]]
    assert sorted(standings) == list(range(table.seats))
    # Standings as the rule book 3.5: the first place is the leaders', and
    # places never go down the list.
    places = [s["rank"] for s in view["standings"]]
    assert places == sorted(places)
    assert [s["seat"] for s in view["standings"] if s["rank"] == 1] == expected_leaders(table)
    if table.match_status is MatchStatus.WON:
        assert set(table.match_winners) == set(expected_leaders(table))


def expected_leaders(table: Table) -> list[int]:
    """The rule book 3.5, written out again: chips when points are none and
    chips are paid, else points (highest, or lowest for losers-score), then
    round wins; ties share."""
    o = table.options
    if o.points == "none" and (o.pass_chips > 0 or o.last_card):
        primary = list(table.chips)
    elif o.points == "losers-score":
        primary = [-p for p in table.points]
    else:
        primary = list(table.points)
    keyed = [(primary[s], table.wins[s]) for s in range(table.seats)]
    best = max(keyed)
    return [s for s, k in enumerate(keyed) if k == best]


def try_refused(table: Table, rng: random.Random) -> None:
    """A move the referee must refuse, at random; it changes nothing (the
    table is a frozen value: only the refusal matters)."""
    rnd = table.round
    assert rnd is not None and rnd.on_turn is not None
    seat = rnd.on_turn
    o = table.options
    choice = rng.randrange(3)
    if choice == 0:
        with pytest.raises(RuleViolation) as caught:
            engine.pass_turn(table, rnd.number, rnd.turn + 1, seat, T0)
        assert caught.value.code == "stale-turn"
    elif choice == 1:
        other = (seat + 1) % table.seats
        with pytest.raises(RuleViolation) as caught:
            engine.pass_turn(table, rnd.number, rnd.turn, other, T0)
        assert caught.value.code == "not-your-turn"
    else:
        stuck = [
            c for c in rnd.hands[seat] if not playable(c, rnd.layout, o.decks, o.turn_the_corner)
        ]
        if stuck:
            with pytest.raises(RuleViolation) as caught:
                engine.play(table, rnd.number, rnd.turn, seat, stuck[0], False, T0)
            assert caught.value.code in ("not-playable", "must-open")


def random_move(table: Table, rng: random.Random, use_bot: bool) -> Transition:
    rnd = table.round
    assert rnd is not None and rnd.on_turn is not None
    seat = rnd.on_turn
    if use_bot:
        move = bot(table, seat, rng)
    else:
        options: list[dict[str, Any]] = [
            {"action": "play", "card": c} for c in playable_now(table, seat)
        ]
        if may_pass(table, seat):
            options.append({"action": "pass"})
        move = rng.choice(options)
        announce = table.options.last_card and len(rnd.hands[seat]) == 2
        move["last_card"] = announce and rng.random() < 0.7
    if move["action"] == "pass":
        assert seat_view(table, seat, T0)["may_pass"]
        return engine.pass_turn(table, rnd.number, rnd.turn, seat, T0)
    assert move["card"] in seat_view(table, seat, T0)["playable"]
    return engine.play(table, rnd.number, rnd.turn, seat, move["card"], move["last_card"], T0)


def play_match(variant: str, seats: int, seed: int, use_bot: bool = False) -> Table:
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(seats)]
    first = None if rng.random() < 0.5 else rng.randrange(seats)
    created = engine.create_table(variant, {}, names, first, rng)
    table = created.table
    check_table(table)
    while table.match_status is MatchStatus.IN_PROGRESS:
        dealt = engine.start_round(table, rng, T0, {})
        table = dealt.table
        check_table(table)
        while table.round is not None and table.round.status is RoundStatus.PLAYING:
            rnd = table.round
            assert rnd.on_turn is not None
            seat, turn, paid_before = rnd.on_turn, rnd.turn, list(rnd.paid)
            if rng.random() < 0.1:
                try_refused(table, rng)
            done = random_move(table, rng, use_bot)
            for event in done.events:
                stored = {**event, "at_ms": T0}
                assert shared_codec.decode_event(shared_codec.encode_event(stored)) == stored
                # Only the card just played may be one that was in a hand.
                hidden = {c for h in rnd.hands for c in h}
                assert public_cards(event) & hidden <= {event.get("card")}
            out = done.outcome
            assert (out["round"], out["turn"], out["seat"]) == (rnd.number, turn, seat)
            table = done.table
            after = table.round
            assert after is not None
            if after.status is RoundStatus.PLAYING:
                # The turn always moves one seat to the left.
                assert after.on_turn == (seat + 1) % table.seats == out["next_seat"]
                assert after.turn == turn + 1 == out["next_turn"]
                paid = [a - b for a, b in zip(after.paid, paid_before, strict=True)]
                assert paid[seat] == out["chips_paid"] and sum(paid) == out["chips_paid"]
                assert out["pot"] == after.pot
            else:
                result = after.result
                assert result is not None and result.winner == seat
                assert result.pot == sum(paid_before) + out["chips_paid"]
                assert (
                    sum(result.chips) == 0 and result.chips[seat] == result.pot - after.paid[seat]
                )
                assert out["result"]["winner"] == seat
            # A repeat answers alike and changes nothing.
            if rng.random() < 0.2:
                move = after.moves[turn - 1]
                if move in ("P", "V"):
                    again = engine.pass_turn(table, rnd.number, turn, seat, T0)
                else:
                    again = engine.play(
                        table, rnd.number, turn, seat, move[:2], move.endswith("!"), T0
                    )
                assert again.table is table and again.events == () and again.outcome == out
            check_table(table)
    return table


@pytest.mark.parametrize("variant", list(PRESETS))
def test_a_whole_match_of_every_preset(variant: str) -> None:
    preset = PRESETS[variant]
    for seats in (preset.min_seats, preset.max_seats):
        table = play_match(variant, seats, seed=seats * 31 + len(variant))
        assert table.match_status is MatchStatus.WON
        assert table.played == seats  # one deal per player
        assert sum(table.wins) == seats


@settings(max_examples=30, deadline=None)
@given(
    variant=st.sampled_from(list(PRESETS)),
    seed=st.integers(0, 2**32 - 1),
    extra=st.integers(0, 4),
    use_bot=st.booleans(),
)
def test_random_matches_keep_every_invariant(
    variant: str, seed: int, extra: int, use_bot: bool
) -> None:
    preset = PRESETS[variant]
    seats = min(preset.min_seats + extra, preset.max_seats)
    table = play_match(variant, seats, seed, use_bot)
    assert table.match_status is MatchStatus.WON
