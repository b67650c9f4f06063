"""The engine's chain and swap passing, Foster's showdown, chips and the
fastest-win bonus (RULES.md 2.5, 2.8, 2.9), edge cases included."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from service.games.errors import RuleViolation
from service.games.ship import engine
from service.games.ship.options import resolve_options
from service.games.ship.passing import choosers_of, hand_sizes
from service.games.ship.scoring import faster
from service.games.ship.settlement import best_pair_sum, chips_paid, showdown
from service.games.ship.state import MatchStatus, RoundResult, RoundStatus, Table
from service.games.ship.views import public_view, seat_view

from ..api.test_variants import FOSTER_DECLARED, OCHSE_DEAL
from .test_engine import SIMULTANEOUS_TRIMMED, T0, dealt, exchange, new_table


def test_chain_turns_start_left_of_the_dealer_and_never_stop() -> None:
    assert [choosers_of("chain", k, 4, 2) for k in range(1, 7)] == [
        (3,),
        (0,),
        (1,),
        (2,),
        (3,),
        (0,),
    ]


def test_swap_circuit_ends_with_dealer_and_dealers_left() -> None:
    assert [choosers_of("swap", k, 3, 0) for k in range(1, 5)] == [(1, 2), (0, 2), (0, 1), (1, 2)]


def test_chain_hand_sizes_within_a_circuit() -> None:
    options = resolve_options("ochse", {}, 4)
    assert [hand_sizes(options, 4, 3, r) for r in range(5)] == [
        [8, 8, 8, 8],
        [7, 9, 8, 8],  # seat 0 passed to seat 1
        [7, 8, 9, 8],
        [7, 8, 8, 9],  # the dealer, seat 3, holds nine
        [8, 8, 8, 8],
    ]


def pass_chain(table: Table, *cards: str) -> Table:
    for card in cards:
        rnd = table.round
        assert rnd is not None
        (seat,) = rnd.exchange.choosers
        table = engine.choose_pass(table, rnd.number, rnd.exchange.number, seat, [card], T0).table
    return table


def test_a_chain_pass_out_of_turn_changes_nothing() -> None:
    table = dealt(OCHSE_DEAL, "ochse")
    with pytest.raises(RuleViolation) as caught:
        engine.choose_pass(table, 1, 1, 0, ["AS"], T0)
    assert caught.value.code == "not-your-turn"
    assert caught.value.extra["waiting_for"] == [1]


def test_chain_repeat_of_a_resolved_pass_answers_the_same() -> None:
    table = pass_chain(dealt(OCHSE_DEAL, "ochse"), "AC")
    again = engine.choose_pass(table, 1, 1, 1, ["AC"], T0)
    assert again.table is table and again.outcome["resolved"] is True


def test_chain_under_automatic_ends_when_the_pass_completes_a_suit() -> None:
    table = dealt(OCHSE_DEAL, "ochse", declaration="automatic")
    table = pass_chain(table, "AC")
    assert table.round is not None and table.round.result is not None
    assert table.round.result.winners == (2,)
    assert table.chips == (-3, -1, 8, -4)


def test_chips_are_not_paid_in_a_void_round_and_tally_over_rounds() -> None:
    table = dealt(OCHSE_DEAL, "ochse", max_exchanges=2)
    table = pass_chain(table, "7H", "7D")
    assert table.round is not None and table.round.result is not None
    assert table.round.result.settled_by == "void" and table.round.result.chips == (0, 0, 0, 0)
    assert table.chips == (0, 0, 0, 0)


def test_chips_for_several_winners_each_paid_by_every_other_seat() -> None:
    options = resolve_options("ochse", {}, 4)
    hands = [
        ["7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"],
        ["7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH"],
        ["7D", "8D", "9D", "TD", "7C", "8C", "9C", "TC"],
        ["JD", "QD", "KD", "AD", "JC", "QC", "KC", "AC"],
    ]
    # Seats 2 and 3 each lack 4; each pays both winners.
    assert chips_paid(options, hands, (0, 1)) == (8, 8, -8, -8)


def test_showdown_on_a_declaration_compares_only_winning_suits() -> None:
    options = resolve_options("foster", {}, 4)
    hands = [["AS", "KS", "QD"], ["2H", "3H", "4H"], ["5C", "6C", "7C"], ["AD", "KD", "QC"]]
    assert showdown(options, 0, hands) == ((2,), "showdown")


def test_showdown_tie_goes_to_the_seat_nearest_the_dealers_left() -> None:
    options = resolve_options("foster", {}, 4)
    hands = [["2H", "3H", "4H"], ["2S", "3S", "4S"], ["2D", "3D", "4D"], ["5C", "6C", "8C"]]
    # Seats 0, 1, 2 tie on 9; seat 3 has 19 and wins outright.
    assert showdown(options, 1, hands) == ((3,), "showdown")
    hands[3] = ["2C", "3C", "4C"]
    # All four tie; dealer 1, so seat 2 is first clockwise.
    assert showdown(options, 1, hands) == ((2,), "showdown")


def test_two_card_showdown_with_no_pair_anywhere_is_void() -> None:
    options = resolve_options("foster", {}, 3)
    hands = [["2H", "3S", "4D"], ["5H", "6S", "7D"], ["8H", "9S", "TC"]]
    assert showdown(options, 0, hands) == ((), "showdown-two-cards")
    assert best_pair_sum(["AH", "KH", "QH"]) == 21


def test_swap_under_automatic_shows_down_after_the_swap_that_makes_three() -> None:
    table = dealt(FOSTER_DECLARED, "foster", declaration="automatic")
    # Seat 3 was dealt three clubs: the showdown happens at the deal.
    assert table.round is not None and table.round.result is not None
    assert table.round.result.winners == (3,)
    assert table.round.result.settled_by == "showdown"
    assert len(table.round.result.hands) == 4


def test_foster_public_view_shows_no_hand_until_the_showdown() -> None:
    table = dealt(FOSTER_DECLARED, "foster")
    table = exchange_swap(table, "9S", "4H")
    view = public_view(table, T0)
    assert view["last_result"] is None and view["round"]["claims"] == []
    assert view["awaiting"] == {"action": "pass", "seats": [2, 3], "until_ms": None}
    done = engine.claim(table, 1, 1, T0).table
    shown = public_view(done, T0)["last_result"]["hands"]
    assert [h["seat"] for h in shown] == [0, 1, 2, 3]


def exchange_swap(table: Table, first: str, second: str) -> Table:
    rnd = table.round
    assert rnd is not None
    a, b = rnd.exchange.choosers
    table = engine.choose_pass(table, rnd.number, rnd.exchange.number, a, [first], T0).table
    return engine.choose_pass(table, rnd.number, rnd.exchange.number, b, [second], T0).table


def test_swap_seat_views_show_the_card_given_and_received() -> None:
    table = exchange_swap(dealt(FOSTER_DECLARED, "foster"), "9S", "4H")
    one, two, three = (seat_view(table, s, T0) for s in (1, 2, 3))
    assert (one["passed"], one["received"]) == (["9S"], ["4H"])
    assert (two["passed"], two["received"]) == (["4H"], ["9S"])
    assert (three["passed"], three["received"], three["to_choose"]) == (None, None, True)


def test_fastest_win_bonus_goes_to_the_quickest_round_win_and_decides_the_match() -> None:
    table = new_table("classic", match={"deals": 2}, fastest_win_bonus=True)
    # Round 1 (dealer 0): seat 1 wins after one exchange.
    table = engine.start_round(table, random.Random(1), T0, SIMULTANEOUS_TRIMMED).table
    table = exchange(table, [["8H"], ["8D"], ["AD"], ["8S"]]).table
    table = engine.claim(table, 1, 1, T0).table
    # Round 2 (dealer 1): seat 3 wins before the first exchange.
    winning = [
        ["AD", "KD", "QD", "JD", "TD", "9D", "8S"],
        ["AS", "KS", "QS", "JS", "TS", "9S", "8H"],
        ["AH", "KH", "QH", "JH", "TH", "9H", "8D"],
        ["AC", "KC", "QC", "JC", "TC", "9C", "8C"],
    ]
    table = engine.start_round(table, random.Random(1), T0, winning).table
    done = engine.claim(table, 2, 3, T0)
    table = done.table
    assert table.wins == (0, 1, 0, 1)
    assert table.fastest_win == (3,) and table.points == (0, 1, 0, 2)
    assert table.match_status is MatchStatus.WON and table.match_winners == (3,)
    assert done.events[-1]["fastest_win"] == [3]
    assert public_view(table, T0)["standings"][0]["seat"] == 3


def test_fastest_win_ties_give_every_fastest_winner_a_point() -> None:
    table = new_table("classic", match={"deals": 2}, fastest_win_bonus=True)
    for _ in range(2):
        table = engine.start_round(table, random.Random(1), T0, SIMULTANEOUS_TRIMMED).table
        assert table.round is not None
        table = exchange(table, [["8H"], ["8D"], ["AD"], ["8S"]]).table
        winner = 1 if table.round and table.round.number == 1 else 0
        table = engine.claim(table, table.round.number, winner, T0).table
    assert table.fastest_win == (0, 1) and table.match_winners == (0, 1)


def test_awaiting_names_the_host_then_nothing_once_the_match_is_over() -> None:
    table = new_table("circle", match={"deals": 1})
    assert public_view(table, T0)["awaiting"]["action"] == "deal"
    table = dealt(SIMULTANEOUS_TRIMMED, "circle", match={"deals": 1})
    table = exchange(table, [["8H"], ["8D"], ["AD"], ["8S"]]).table
    table = engine.claim(table, 1, 0, T0).table
    assert public_view(table, T0)["awaiting"] == {
        "action": "claims",
        "seats": [],
        "until_ms": T0 + 1500,
    }
    assert public_view(table, T0 + 1501)["awaiting"]["action"] == "nothing"
    assert table.round is not None and table.round.status is RoundStatus.CLAIM_WINDOW


def test_a_swap_completing_three_on_the_last_swap_wins_the_showdown_by_its_three() -> None:
    # One circuit of three swaps: (1,2) QC/9D, (0,2) 6D/QC, (0,1) QC/4H.
    table = new_table("foster", seats=3, swap_circuits=1)
    deal = [["2H", "3H", "6D"], ["4H", "KC", "QC"], ["5S", "7S", "9D"]]
    table = engine.start_round(table, random.Random(1), T0, deal).table
    table = exchange_swap(table, "QC", "9D")
    table = exchange_swap(table, "6D", "QC")
    table = exchange_swap(table, "QC", "4H")
    assert table.round is not None and table.round.result is not None
    # Seat 0's 4H 3H 2H (9) beats seat 1's two clubs (KC QC, 20): nobody may
    # fall back on two cards while a seat holds three (seed 002).
    assert table.round.hands[0] == ("4H", "3H", "2H")
    assert (table.round.result.winners, table.round.result.settled_by) == ((0,), "showdown")


def test_overriding_foster_passing_drops_its_circuits_and_automatic_ignores_the_window() -> None:
    assert resolve_options("foster", {"passing": "simultaneous"}, 4).swap_circuits is None
    assert resolve_options("foster", {"passing": "chain"}, 4).passing == "chain"
    automatic = resolve_options("foster", {"declaration": "automatic", "claim_window_ms": 900}, 4)
    assert automatic.claim_window_ms == 900  # RULES.md 2.9: it simply does not apply


def test_matrimony_deals_the_whole_deck() -> None:
    with pytest.raises(RuleViolation) as caught:
        resolve_options("matrimony", {"hand_size": 10}, 4)
    assert {e.pointer: e.detail for e in caught.value.errors} == {
        "/options/hand_size": "matrimony deals all 52 cards: 4 hands of 10 deal 40"
    }


def test_an_abandoned_round_of_a_chips_table_moves_no_chips() -> None:
    table = dealt(OCHSE_DEAL, "ochse")
    table = engine.finish(table, T0).table
    assert table.round is not None and table.round.result is not None
    assert table.round.result.settled_by == "abandoned"
    assert table.round.result.chips == (0, 0, 0, 0) and table.chips == (0, 0, 0, 0)


def test_with_chips_standings_rank_by_net_chips_first_then_wins() -> None:
    """RULES.md 2.11: Ochse is played for chips; a seat with more round wins
    but fewer chips ranks lower, and an open match is won by the most chips."""
    table = engine.create_table("ochse", {}, ["A", "B", "C", "D"], 0, random.Random(3)).table
    table = replace(table, chips=(5, -10, 3, 2), wins=(0, 3, 1, 0))
    view = public_view(table, 0)
    assert [s["seat"] for s in view["standings"]] == [0, 2, 3, 1]
    finished = engine.finish(table, 0).table
    assert finished.match_status is MatchStatus.FINISHED and finished.match_winners == (0,)
    # A tie on chips is broken by round wins; a tie on both is shared.
    table = replace(table, chips=(3, 3, -3, -3), wins=(0, 1, 0, 0))
    assert [s["seat"] for s in public_view(table, 0)["standings"]] == [1, 0, 2, 3]
    table = replace(table, wins=(1, 1, 0, 0))
    assert engine.finish(table, 0).table.match_winners == (0, 1)


def test_the_fastest_win_kept_round_by_round_is_that_of_every_round() -> None:
    # The state keeps only the fewest exchanges and who won that fast: after
    # any rounds it names what every round's results name (RULES.md 2.8).
    rng = random.Random(7)
    for _ in range(200):
        results = [
            RoundResult(
                n,
                0,
                rng.randint(1, 6),
                tuple(sorted(rng.sample(range(4), rng.randint(0, 2)))),
                (),
                "sole",
            )
            for n in range(1, rng.randint(1, 12))
        ]
        fewest, by = None, ()
        for r in results:
            fewest, by = faster(fewest, by, r)
        won = [r for r in results if r.winners]
        least = min((r.exchanges for r in won), default=None)
        seats = {s for r in won if r.exchanges == least for s in r.winners}
        assert (fewest, by) == (least, tuple(sorted(seats)))
