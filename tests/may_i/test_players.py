"""The automatic player (RULES.md 4.5, 4.6): how it measures a hand, what it
takes, asks for, lays down, lays off and discards, and whole simulated
matches of every preset and table size (cards conserved, scores as 4.8)."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from service.cli import main
from service.games.may_i import GAME, engine
from service.games.may_i.melds import Meld, check_contract, classify, hand_value
from service.games.may_i.options import PRESETS, deck_for, resolve_options
from service.games.may_i.players import (
    MAY_I_HAND_LIMIT,
    Plan,
    best_discard,
    bot,
    find_contract,
    plan,
    wants,
)
from service.games.may_i.simulate import player_counts, step
from service.games.may_i.state import MatchStatus, Offer, Step, Table

from .common import all_cards, dealt, move, position

RNG = random.Random(1)


def with_pile(table: Table, *cards: str, offer: bool = False) -> Table:
    """The table with ``cards`` as the discard pile (top last), discarded by
    seat 0; with ``offer``, the top card offered in a May I? window."""
    rnd = table.round
    assert rnd is not None
    rnd = replace(rnd, pile=cards, pile_by=(0,) * len(cards))
    if offer:
        o = Offer(1, cards[-1], 0, 5000, None, ("",) * table.seats)
        rnd = replace(rnd, step=Step.MAY_I, offer=o, offers=1)
    return replace(table, round=rnd)


def test_plan_counts_the_cards_the_contract_still_misses() -> None:
    # Round 2 (a set and a run): 5H 5S want a third five, 9D TD JD a fourth diamond.
    hand = ["5H", "5S", "9D", "TD", "JD", "2C", "KH", "7S", "3C", "4H"]
    assert plan(2, hand).missing == 2
    assert plan(2, [*hand, "5C"]).missing == 1
    # Round 1 (two sets): two pairs miss two cards; a joker fills one gap of
    # a pair, never a lone card's two (JK JK 5S is no set, 4.2).
    pairs = ["5H", "5S", "9D", "9C", "2C", "KH", "7S", "3C", "4H", "AD"]
    assert plan(1, pairs).missing == 2
    assert plan(1, [*pairs, "JK"]).missing == 1
    assert plan(1, ["5H", "JK", "JK", "9C", "9D", "2C", "KH", "7S", "3C", "4H"]).missing == 1
    assert plan(3, ["AS", "2S", "3S", "4S", "KD", "QD", "JD", "TD", "7C", "8H"]).missing == 0


def test_plan_leaves_a_run_whose_missing_cards_are_all_melded() -> None:
    # 9D TD JD waits for 8D or QD (KD would need QD too); with both copies of
    # each melded (two decks), no card left can complete it: the plan goes for
    # a run still live, further away.
    hand = ["5H", "5S", "9D", "TD", "JD", "2C", "KH", "7S", "3C", "4H"]
    melds = [Meld(1, 0, *classify(["QD", "QD", "QS"])), Meld(2, 1, *classify(["8D", "8D", "8C"]))]
    assert plan(2, hand) == Plan(2, (("8D", "9D", "TD", "JD"),), ("5",))
    assert plan(2, hand, melds[:1], decks=2) == Plan(2, (("8D", "9D", "TD", "JD"),), ("5",))
    live = plan(2, hand, melds, decks=2)
    assert (live.missing, live.dead, live.runs) == (4, 0, (("4S", "5S", "6S", "7S"),))


def test_find_contract_lays_down_exactly_the_contract() -> None:
    hand = ["5H", "5S", "5C", "9D", "TD", "JD", "QD", "2C", "KH", "7S"]
    assert find_contract(2, hand) == [["9D", "TD", "JD", "QD"], ["5C", "5H", "5S"]]
    # The joker stands for the ten (RULES.md 4.2); the Ace is low in A-4.
    jokers = ["JK", "9D", "JD", "QD", "2S", "3S", "4S", "AS", "KC", "8H"]
    assert find_contract(3, jokers) == [["AS", "2S", "3S", "4S"], ["9D", "JK", "JD", "QD"]]
    three = ["5H", "5S", "5D", "9D", "9C", "9S", "KH", "KS", "JK", "AD"]
    assert find_contract(4, three) == [["5D", "5H", "5S"], ["9C", "9D", "9S"], ["KH", "KS", "JK"]]
    assert find_contract(2, ["5H", "5S", "9D", "TD", "JD", "2C", "KH", "7S", "3C", "4H"]) is None
    rng = random.Random(5)
    deck = list(deck_for(resolve_options("may-i-jokers", {}, 4)))  # two decks, four jokers
    laid = 0
    for _ in range(3000):
        round_no, cards = rng.randint(1, 5), rng.sample(deck, rng.randint(10, 15))
        melds = find_contract(round_no, cards)
        if plan(round_no, cards).missing == 0:
            assert melds is not None
            check_contract(round_no, melds)
            assert not Counter(c for m in melds for c in m) - Counter(cards)
            laid += 1
        else:
            assert melds is None
    assert laid == 308


def test_the_bot_declines_a_discard_it_would_throw_back() -> None:
    # Round 1: KC pairs with nothing, so taking it changes nothing (the old
    # bot took and threw back KC round the table for ever).
    hand = ["5H", "5S", "9D", "9C", "2C", "7H", "7S", "3C", "4H", "AD"]
    table = with_pile(position(dealt(), hands={1: hand}), "QD", "KC")
    assert bot(table, 1, RNG) == {"action": "decline", "argument": None}
    pairing = with_pile(position(dealt(), hands={1: hand}), "KC", "5C")
    assert bot(pairing, 1, RNG) == {"action": "take_discard", "argument": None}


def test_the_bot_takes_what_completes_its_contract_and_lays_down() -> None:
    hand = ["5H", "5S", "5D", "9D", "9C", "2C", "KH", "7S", "3C", "4H"]
    table = with_pile(position(dealt(), hands={1: hand}), "9S")
    t = move(table, 1, bot(table, 1, RNG)["action"])
    assert t.table.round.step is Step.PLAY  # type: ignore[union-attr]
    choice = bot(t.table, 1, RNG)
    assert choice == {"action": "lay_down", "argument": [["5D", "5H", "5S"], ["9C", "9D", "9S"]]}
    t = move(t.table, 1, "lay_down", choice["argument"])
    # Then it discards the dearest of what is left: KH (10 points).
    assert bot(t.table, 1, RNG) == {"action": "discard", "argument": "KH"}


def test_a_laid_down_seat_takes_a_discard_that_fits_and_lays_it_off() -> None:
    table = position(
        dealt(),
        hands={1: ["KH", "3C", "8S"]},
        melds=[(1, ["5D", "5H", "5S"]), (2, ["9C", "TC", "JC", "QC"])],
        down=[1, 2],
    )
    t = move(with_pile(table, "KC"), 1, bot(with_pile(table, "KC"), 1, RNG)["action"])
    assert t.events[0]["type"] == "discard-taken"
    choice = bot(t.table, 1, RNG)
    assert choice == {"action": "lay_off", "argument": {"card": "KC", "meld": 2, "end": None}}
    t = move(t.table, 1, "lay_off", choice["argument"])
    # Left: KH 3C 8S. 8S is two away from nothing; KH is dearest.
    assert bot(t.table, 1, RNG) == {"action": "discard", "argument": "KH"}
    declined = with_pile(table, "2H")
    assert bot(declined, 1, RNG) == {"action": "decline", "argument": None}


def test_the_discard_is_one_the_rules_allow_and_the_loosest() -> None:
    # 5C fits the set of fives on the table: never discarded while another
    # card may be (4.5.3), however dear or loose it is.
    table = position(
        dealt(),
        hands={1: ["AC", "5C", "8H", "8D", "JS", "JH", "2D"]},
        melds=[(2, ["5D", "5H", "5S"])],
        step=Step.PLAY,
    )
    assert best_discard(table, 1) == "AC"
    # A laid-down seat keeps what is one rank short of a run's end (7C may
    # fit once 8C is laid off) and sheds what fits nowhere.
    down = position(
        dealt(),
        hands={1: ["7C", "2D"]},
        melds=[(1, ["9C", "TC", "JC", "QC"])],
        step=Step.PLAY,
        down=[1],
    )
    assert best_discard(down, 1) == "2D"


def test_who_asks_for_an_offered_discard() -> None:
    near = ["5H", "5S", "9D", "9C", "2C", "7H", "KS", "3C", "4H", "AD"]
    table = with_pile(position(dealt(), hands={2: near, 3: list(near)}, down=[3]), "5C", offer=True)
    assert wants(table, 2)  # a third five: a set nearer
    assert not wants(table, 3)  # laid down: it only lays off
    full = [*near, "6C", "6D", "8S", "TS"]
    assert len(full) == MAY_I_HAND_LIMIT
    assert not wants(with_pile(position(dealt(), hands={2: full}), "5C", offer=True), 2)
    assert not wants(with_pile(position(dealt(), hands={2: near}), "QC", offer=True), 2)


def play_checked(variant: str, seats: int, seed: int) -> tuple[Table, list[Any]]:
    """A whole match of bots, checked after every move: every card of the
    decks is somewhere exactly once; each round scores as 4.8. Returns the
    table and every round's result."""
    results = []
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(seats)]
    table = engine.create_table(variant, {}, names, None, rng).table
    deck = Counter(deck_for(table.options))
    now = 0
    while table.match_status is MatchStatus.IN_PROGRESS:
        table = engine.start_round(table, rng, now, {}).table
        while (rnd := table.round) is not None and rnd.playing:
            assert rnd.taken < 1500, f"round {rnd.number} does not end"
            table, now, _ = step(table, rng, now)
            assert all_cards(table) == deck
        rnd = table.round
        assert rnd is not None and rnd.result is not None and not rnd.result.abandoned
        r = rnd.result
        assert r.points == tuple(
            20 if s == r.out else -hand_value(rnd.hands[s]) for s in range(seats)
        )
        assert table.last == r
        results.append(r)
    return table, results


@pytest.mark.parametrize(
    ("variant", "seats"),
    [(v, n) for v in sorted(PRESETS) for n in range(3, 9) if PRESETS[v].allows(n)],
)
def test_a_seeded_simulated_match_finishes(variant: str, seats: int) -> None:
    table, results = play_checked(variant, seats, seed=seats)
    assert table.match_status is MatchStatus.WON
    assert [r.round for r in results] == [1, 2, 3, 4, 5] and table.played == 5
    assert table.points == tuple(sum(r.points[s] for r in results) for s in range(seats))
    best = max(table.points)
    assert table.match_winners == tuple(s for s in range(seats) if table.points[s] == best)


def test_simulate_is_deterministic_and_every_round_ends() -> None:
    first = GAME.simulation.run("may-i", 5, 15, 2, {})
    assert GAME.simulation.run("may-i", 5, 15, 2, {}) == first
    assert first.rounds_gone_out + first.rounds_stock_dry == 15
    assert first.rounds_abandoned == 0
    assert (first.matches, first.matches_finished) == (3, 3)
    assert first.p50_moves <= first.p90_moves <= first.max_moves
    assert player_counts("may-i-jokers", [2, 3, 8, 9]) == [3, 8]


def test_cli_prints_may_i_figures(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--game", "may-i", "--players", "3-4", "--rounds", "5", "--jobs", "1"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("May I?\n")
    rows = [line.split("|")[1:3] for line in out.splitlines() if line.startswith("| may-i")]
    assert [(v.strip(), int(n)) for v, n in rows] == [
        ("may-i", 3),
        ("may-i", 4),
        ("may-i-jokers", 3),
        ("may-i-jokers", 4),
    ]
    assert main([*args, "--format", "json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert all(f["rounds_abandoned"] == 0 for f in figures)
