"""The pure engine: deal, pass, claim, settle, score (RULES.md 2.4-2.8, 2.10)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from service.games.base import draw_first_dealer
from service.games.cards import STANDARD_DECK, sort_cards
from service.games.errors import RuleViolation
from service.games.ship import engine
from service.games.ship.state import MatchStatus, RoundStatus, Table
from service.games.ship.views import public_view, seat_view

T0 = 1_000_000

# RULES.md 2.10 (seed 001): seat 0 is "A"; seat 3 is A's right neighbour.
WORKED_EXAMPLE = [
    ["AH", "KH", "8H", "5H", "2H", "QC", "4S"],
    ["3C", "4C", "5C", "6C", "7C", "8C", "9C"],
    ["2D", "3D", "4D", "5D", "6D", "7D", "8D"],
    ["9H", "JH", "2S", "3S", "5S", "6S", "7S"],
]

# A 4-seat trimmed deal (ranks 8..A) where seats 0 and 1 each complete a suit
# in exchange 1 (passes 8H 8D AD 8S): seat 0 gets 8S from seat 3, seat 1 gets
# 8H from seat 0; seats 2 and 3 do not.
SIMULTANEOUS_TRIMMED = [
    ["AS", "KS", "QS", "JS", "TS", "9S", "8H"],
    ["AH", "KH", "QH", "JH", "TH", "9H", "8D"],
    ["AD", "KD", "QD", "JD", "TD", "9D", "8C"],
    ["AC", "KC", "QC", "JC", "TC", "9C", "8S"],
]


def new_table(variant: str = "classic", seats: int = 4, dealer: int = 0, **overrides: Any) -> Table:
    names = [f"P{i}" for i in range(seats)]
    return engine.create_table(variant, overrides, names, dealer, random.Random(7)).table


def dealt(hands: list[list[str]], variant: str = "classic", **overrides: Any) -> Table:
    table = new_table(variant, len(hands), **overrides)
    return engine.start_round(table, random.Random(1), T0, hands).table


def exchange(table: Table, passes: list[list[str]], now: int = T0) -> engine.Transition:
    assert table.round is not None
    number = table.round.exchange.number
    transition = engine.Transition(table)
    for seat, cards in enumerate(passes):
        transition = engine.choose_pass(
            transition.table, table.round.number, number, seat, cards, now
        )
    return transition


def test_worked_example_of_rules_2_10() -> None:
    table = dealt(WORKED_EXAMPLE, "circle", claim_window_ms=0)
    table = exchange(table, [["4S"], ["9C"], ["8D"], ["9H"]]).table
    view = seat_view(table, 0, T0)
    assert view["received"] == ["9H"] and view["passed"] == ["4S"]
    assert view["hand"] == ["AH", "KH", "9H", "8H", "5H", "2H", "QC"]
    table = exchange(table, [["QC"], ["4S"], ["9C"], ["JH"]]).table
    assert table.round is not None
    assert table.round.hands[0] == ("AH", "KH", "JH", "9H", "8H", "5H", "2H")
    done = engine.claim(table, 1, 0, T0)
    assert done.outcome["result"] == {
        "round": 1,
        "dealer": 0,
        "exchanges": 2,
        "winners": [0],
        "settled_by": "sole",
        "hands": [{"seat": 0, "cards": ["AH", "KH", "JH", "9H", "8H", "5H", "2H"]}],
        "chips": [],
        # RULES.md 2.11: the 24 cards the full deck set aside, shown once it is over.
        "set_aside": list(
            sort_cards(c for c in STANDARD_DECK if all(c not in h for h in WORKED_EXAMPLE))
        ),
    }
    assert len(done.outcome["result"]["set_aside"]) == 24
    assert done.table.wins == (1, 0, 0, 0)
    # The received cards came from seat 3's hand, never from the cards set aside.
    assert done.table.round is not None
    assert "9H" not in done.table.round.hands[3] and "JH" not in done.table.round.hands[3]
    assert len(done.table.round.set_aside) == 24


def test_shuffled_deal_gives_every_seat_a_hand_from_the_deck() -> None:
    table = new_table("classic", 5)
    rnd = engine.start_round(table, random.Random(3), T0).table.round
    assert rnd is not None
    cards = [c for h in rnd.hands for c in h]
    assert all(len(h) == 7 for h in rnd.hands)
    assert len(set(cards)) == 35 and "6C" not in cards and rnd.set_aside == ()


def test_full_deck_sets_the_rest_aside_unseen() -> None:
    table = new_table("mein-schiff", 4)
    after = engine.start_round(table, random.Random(3), T0).table
    assert after.round is not None and len(after.round.set_aside) == 24
    view = str(public_view(after, T0))
    assert not any(card in view for card in after.round.set_aside)


def test_submitted_deal_lists_every_problem_at_once() -> None:
    table = new_table("classic", 4)
    hands = [
        ["AS", "KS", "QS", "JS", "TS", "9S", "8S"],
        ["AS", "KH", "QH", "JH", "TH", "9H"],  # AS twice; six cards
        ["AD", "KD", "QD", "JD", "TD", "9D", "2D"],  # 2D is not in the 8..A deck
        ["AC", "KC", "QC", "JC", "TC", "9C", "ZZ"],
    ]
    with pytest.raises(RuleViolation) as caught:
        engine.start_round(table, random.Random(1), T0, hands)
    problems = {e.pointer: e.detail for e in caught.value.errors}
    assert caught.value.code == "deal-invalid"
    assert problems["/hands/1"] == "6 cards; each hand holds 7"
    assert problems["/hands/1/0"] == "AS is dealt twice (also in hand 0)"
    assert problems["/hands/2/6"].startswith("2D is not in this deck (28 cards, ranks 8..A")
    assert "'ZZ' is not a card" in problems["/hands/3/6"]
    assert problems["/hands"].startswith("every card of this deck is dealt; missing: ")
    assert set(problems["/hands"].split(": ")[1].split()) == {"AH", "8H", "8D", "8C"}


def test_first_dealer_draw_redraws_ties_and_lowest_deals() -> None:
    class Stacked:
        """Deals a fixed sequence of shuffles."""

        def __init__(self, orders: list[list[str]]) -> None:
            self.orders = orders

        def shuffle(self, deck: list[str]) -> None:
            top = self.orders.pop(0)
            rest = [c for c in deck if c not in top]
            deck[:] = top + rest

    rng = Stacked([["3H", "9C", "3S", "KD"], ["7D", "5C"]])
    dealer, draw = draw_first_dealer(4, rng)
    assert draw == (("3H", "9C", "3S", "KD"), ("7D", None, "5C", None))
    assert dealer == 2


def test_dealer_rotates_left_and_alternate_direction_flips() -> None:
    table = new_table("alternate", 4, dealer=3, max_exchanges=1)
    first = engine.start_round(table, random.Random(1), T0).table
    assert first.round is not None and (first.round.dealer, first.round.direction) == (3, "left")
    void = exchange(first, [[first.round.hands[s][0]] for s in range(4)]).table
    second = engine.start_round(void, random.Random(2), T0).table
    assert second.round is not None and (second.round.dealer, second.round.direction) == (
        0,
        "right",
    )


def test_claim_before_the_first_exchange_wins() -> None:
    hands = [
        ["AH", "KH", "QH", "JH", "TH", "9H", "8H"],
        ["AS", "KS", "QS", "JS", "TS", "9S", "8D"],
        ["AD", "KD", "QD", "JD", "TD", "9D", "8S"],
        ["AC", "KC", "QC", "JC", "TC", "9C", "8C"],
    ]
    table = dealt(hands)
    done = engine.claim(table, 1, 0, T0)
    assert done.outcome["result"]["winners"] == [0]
    assert done.outcome["result"]["exchanges"] == 0


def test_claim_while_an_exchange_is_half_chosen_cancels_the_chosen_passes() -> None:
    hands = [
        ["AH", "KH", "QH", "JH", "TH", "9H", "8H"],
        ["AS", "KS", "QS", "JS", "TS", "9S", "8D"],
        ["AD", "KD", "QD", "JD", "TD", "9D", "8S"],
        ["AC", "KC", "QC", "JC", "TC", "9C", "8C"],
    ]
    table = dealt(hands)
    table = engine.choose_pass(table, 1, 1, 1, ["8D"], T0).table
    table = engine.choose_pass(table, 1, 1, 2, ["8S"], T0).table
    done = engine.claim(table, 1, 3, T0).table
    assert done.round is not None
    assert done.round.hands[1] == sort_cards(hands[1])
    assert done.round.hands[2] == sort_cards(hands[2])
    assert done.round.exchange.choices == (None,) * 4
    assert done.round.result is not None and done.round.result.winners == (3,)
    with pytest.raises(RuleViolation) as caught:
        engine.choose_pass(done, 1, 1, 0, ["8H"], T0)
    assert caught.value.code == "round-over"


def test_invalid_claim_gives_the_reason_and_a_public_record_without_cards() -> None:
    table = dealt(WORKED_EXAMPLE, "circle")
    table = exchange(table, [["4S"], ["9C"], ["8D"], ["9H"]]).table
    with pytest.raises(RuleViolation) as caught:
        engine.claim(table, 1, 0, T0)
    assert caught.value.code == "claim-not-winning"
    assert caught.value.detail == "The hand holds 6 hearts; 7 cards of one suit are needed."
    assert caught.value.record == ({"type": "claim-rejected", "round": 1, "seat": 0},)


def test_automatic_simultaneous_wins_in_a_trimmed_deck_are_shared() -> None:
    table = dealt(SIMULTANEOUS_TRIMMED, "classic", declaration="automatic")
    done = exchange(table, [["8H"], ["8D"], ["AD"], ["8S"]])
    result = done.table.last
    assert result is not None
    assert result.winners == (0, 1) and result.settled_by == "shared"
    assert done.table.wins == (1, 1, 0, 0)
    assert [e["type"] for e in done.events][-2:] == ["exchange-resolved", "round-won"]


def test_automatic_highest_card_decides_when_ranks_differ() -> None:
    hands = [
        ["AS", "KS", "QS", "JS", "TS", "9S", "3H"],
        ["KH", "QH", "JH", "TH", "9H", "8H", "2S"],
        ["AD", "KD", "QD", "JD", "TD", "9D", "8D"],
        ["AC", "KC", "QC", "JC", "TC", "9C", "8C"],
    ]
    # Seats 2 and 3 win at the deal: A-high diamonds and clubs tie all the way.
    done = dealt(hands, "mein-schiff", declaration="automatic")
    assert done.last.winners == (2, 3) and done.last.settled_by == "shared"
    hands[3] = ["KC", "QC", "JC", "TC", "9C", "8C", "7C"]
    hands[2] = ["AD", "KD", "QD", "JD", "TD", "9D", "2D"]
    done = dealt(hands, "mein-schiff", declaration="automatic")
    assert done.last.winners == (2,) and done.last.settled_by == "highest-card"


# A full-deck deal in which every seat wins at once; spades and hearts tie
# down to the seventh card.
FOUR_WINNING = [
    ["AS", "KS", "QS", "JS", "TS", "9S", "2S"],
    ["AH", "KH", "QH", "JH", "TH", "9H", "3H"],
    ["2D", "3D", "4D", "5D", "6D", "7D", "8D"],
    ["2C", "3C", "4C", "5C", "6C", "7C", "9C"],
]


def test_highest_card_compares_from_the_top_down() -> None:
    done = dealt(FOUR_WINNING, "mein-schiff", declaration="automatic")
    assert done.last.winners == (1,)  # ties down to the seventh card, 3 beats 2


@pytest.mark.parametrize(("dealer", "winner"), [(0, 1), (1, 0), (3, 0)])
def test_highest_sum_tie_goes_to_the_seat_nearest_the_dealers_left(
    dealer: int, winner: int
) -> None:
    # Seats 0 and 1 both sum 68 (A=11, K Q J T=10, 9, 8); seats 2 and 3 less.
    hands = [
        ["AS", "KS", "QS", "JS", "TS", "9S", "8S"],
        ["AH", "KH", "QH", "JH", "TH", "9H", "8H"],
        ["2D", "3D", "4D", "5D", "6D", "7D", "8D"],
        ["2C", "3C", "4C", "5C", "6C", "7C", "9C"],
    ]
    table = new_table(
        "mein-schiff", 4, dealer=dealer, declaration="automatic", simultaneous_wins="highest-sum"
    )
    done = engine.start_round(table, random.Random(1), T0, hands).table
    assert done.last.winners == (winner,) and done.last.settled_by == "highest-sum"


def test_shared_rule_makes_every_simultaneous_winner_win() -> None:
    done = dealt(FOUR_WINNING, "circle", declaration="automatic")
    assert done.last.winners == (0, 1, 2, 3) and done.wins == (1, 1, 1, 1)


def test_claim_window_takes_a_second_winning_hand_and_closes_on_time() -> None:
    hands = [
        ["AS", "KS", "QS", "JS", "TS", "9S", "2S"],
        ["AH", "KH", "QH", "JH", "TH", "9H", "3H"],
        ["2D", "3D", "4D", "5D", "6D", "7D", "8D"],
        ["2C", "3C", "4C", "5C", "6C", "8C", "TD"],
    ]
    table = dealt(hands, "circle")  # window 1500 ms, shared
    first = engine.claim(table, 1, 1, T0)
    assert first.outcome["round_status"] == "claim-window"
    assert first.outcome["window_closes_at_ms"] == T0 + 1500
    # Seat 3 does not win: refused and logged; the window goes on unchanged.
    with pytest.raises(RuleViolation) as caught:
        engine.claim(first.table, 1, 3, T0 + 10)
    assert caught.value.code == "claim-not-winning"
    assert [e["type"] for e in caught.value.record] == ["claim-rejected"]
    # "This long after" includes the last instant of the window.
    second = engine.claim(first.table, 1, 0, T0 + 1500)
    assert second.table.round is not None and second.table.round.status is RoundStatus.CLAIM_WINDOW
    with pytest.raises(RuleViolation) as caught:
        engine.choose_pass(second.table, 1, 1, 2, ["2D"], T0 + 1500)
    assert caught.value.code == "round-over"
    with pytest.raises(RuleViolation) as caught:
        engine.start_round(second.table, random.Random(1), T0 + 1500)
    assert caught.value.code == "round-in-play"
    with pytest.raises(RuleViolation) as caught:
        engine.claim(second.table, 1, 2, T0 + 1501)  # seat 2 wins too, but too late
    assert caught.value.code == "claim-window-closed"
    assert caught.value.record == ()  # the window's close is due, not the refusal's
    closed = engine.settle_due(second.table, T0 + 1501)
    assert closed.table.last.winners == (0, 1)
    assert [(e["type"], e["at_ms"]) for e in closed.events] == [("round-won", T0 + 1501)]
    # The public view shows the settlement as soon as the window has closed.
    assert public_view(second.table, T0 + 1501)["last_result"]["winners"] == [0, 1]
    assert public_view(second.table, T0 + 1501)["rounds_played"] == 1
    assert public_view(second.table, T0 + 1500)["last_result"] is None


def test_a_window_between_two_claimants_is_settled_by_highest_card() -> None:
    table = dealt(FOUR_WINNING, "mein-schiff", claim_window_ms=100)
    first = engine.claim(table, 1, 0, T0)
    both = engine.claim(first.table, 1, 1, T0 + 50).table
    result = engine.settle_due(both, T0 + 101).table.last
    assert result.winners == (1,) and result.settled_by == "highest-card"
    assert [s for s, _ in result.hands] == [0, 1]  # both claimants showed their hands


def test_repeating_a_valid_claim_answers_alike_and_changes_nothing() -> None:
    table = dealt(FOUR_WINNING, "mein-schiff")
    won = engine.claim(table, 1, 2, T0)
    again = engine.claim(won.table, 1, 2, T0 + 5)
    assert again.table is won.table and again.events == ()
    assert again.outcome == won.outcome


def test_window_zero_first_valid_claim_wins_outright() -> None:
    hands = [
        ["AS", "KS", "QS", "JS", "TS", "9S", "2S"],
        ["AH", "KH", "QH", "JH", "TH", "9H", "3H"],
        ["2D", "3D", "4D", "5D", "6D", "7D", "8D"],
        ["2C", "3C", "4C", "5C", "6C", "8C", "9C"],
    ]
    table = dealt(hands, "mein-schiff")
    won = engine.claim(table, 1, 0, T0).table
    assert won.last.winners == (0,)
    with pytest.raises(RuleViolation) as caught:
        engine.claim(won, 1, 1, T0)
    assert caught.value.code == "round-over"


def test_void_round_after_max_exchanges_counts_as_a_deal() -> None:
    table = dealt(WORKED_EXAMPLE, "circle", max_exchanges=1, match={"deals": 2})
    done = exchange(table, [["4S"], ["9C"], ["8D"], ["2S"]])
    assert done.table.last.settled_by == "void" and done.table.last.winners == ()
    assert done.table.wins == (0, 0, 0, 0)
    assert done.events[-1]["type"] == "round-void"
    second = engine.start_round(done.table, random.Random(2), T0).table
    assert second.round is not None and second.round.number == 2 and second.round.dealer == 1
    final = exchange(second, [[second.round.hands[s][0]] for s in range(4)]).table
    # Two void deals end the match; every seat ties at zero wins, and ties are
    # shared (RULES.md 2.8, read literally).
    assert final.match_status is MatchStatus.WON and final.match_winners == (0, 1, 2, 3)


def test_target_wins_ends_the_match_and_blocks_new_rounds() -> None:
    hands = [
        ["AH", "KH", "QH", "JH", "TH", "9H", "8H"],
        ["AS", "KS", "QS", "JS", "TS", "9S", "8D"],
        ["AD", "KD", "QD", "JD", "TD", "9D", "8S"],
        ["AC", "KC", "QC", "JC", "TC", "9C", "8C"],
    ]
    table = dealt(hands, "classic", match={"target_wins": 1})
    done = engine.claim(table, 1, 3, T0)
    assert done.table.match_status is MatchStatus.WON and done.table.match_winners == (3,)
    assert done.events[-1] == {
        "type": "match-won",
        "status": "won",
        "winners": [3],
        "fastest_win": [],
    }
    with pytest.raises(RuleViolation) as caught:
        engine.start_round(done.table, random.Random(1), T0)
    assert caught.value.code == "match-over"


def test_shared_round_can_take_several_seats_to_the_target_together() -> None:
    table = dealt(
        SIMULTANEOUS_TRIMMED, "classic", declaration="automatic", match={"target_wins": 1}
    )
    done = exchange(table, [["8H"], ["8D"], ["AD"], ["8S"]]).table
    assert done.match_status is MatchStatus.WON and done.match_winners == (0, 1)


def test_deals_match_ties_are_shared() -> None:
    table = dealt(SIMULTANEOUS_TRIMMED, "classic", declaration="automatic", match={"deals": 1})
    done = exchange(table, [["8H"], ["8D"], ["AD"], ["8S"]]).table
    assert done.match_winners == (0, 1)


def test_open_match_is_finished_by_the_host_with_the_leaders() -> None:
    hands = [
        ["AH", "KH", "QH", "JH", "TH", "9H", "8H"],
        ["AS", "KS", "QS", "JS", "TS", "9S", "8D"],
        ["AD", "KD", "QD", "JD", "TD", "9D", "8S"],
        ["AC", "KC", "QC", "JC", "TC", "9C", "8C"],
    ]
    table = dealt(hands, "mein-schiff")
    won = engine.claim(table, 1, 3, T0).table
    second = engine.start_round(won, random.Random(5), T0).table
    finished = engine.finish(second, T0)
    assert finished.table.match_status is MatchStatus.FINISHED
    assert finished.table.match_winners == (3,)
    assert [e["type"] for e in finished.events] == ["round-abandoned", "match-finished"]
    assert finished.table.played == 1  # the abandoned round is not scored
    assert public_view(finished.table, T0)["rounds_played"] == 1


def test_stale_exchange_and_round_numbers_are_conflicts_with_current_numbers() -> None:
    table = dealt(WORKED_EXAMPLE, "circle")
    with pytest.raises(RuleViolation) as caught:
        engine.choose_pass(table, 1, 2, 0, ["4S"], T0)
    assert caught.value.code == "stale-exchange"
    assert caught.value.extra == {
        "current_round": 1,
        "current_exchange": 1,
        "round_status": "passing",
        "waiting_for": [0, 1, 2, 3],
    }
    with pytest.raises(RuleViolation) as caught:
        engine.choose_pass(table, 2, 1, 0, ["4S"], T0)
    assert caught.value.code == "stale-round"


def test_pass_problems_are_listed_together() -> None:
    table = dealt(WORKED_EXAMPLE, "circle", pass_count=2)
    with pytest.raises(RuleViolation) as caught:
        engine.choose_pass(table, 1, 1, 0, ["4S", "4S", "9C"], T0)
    problems = {e.pointer: e.detail for e in caught.value.errors}
    assert problems == {
        "/cards/1": "4S is named twice",
        "/cards/2": "9C is not in this hand",
        "/cards": "3 named; each seat passes 2 cards",
    }


def test_a_seat_may_replace_its_choice_until_the_exchange_resolves() -> None:
    table = dealt(WORKED_EXAMPLE, "circle")
    first = engine.choose_pass(table, 1, 1, 0, ["QC"], T0)
    assert first.events == ({"type": "pass-chosen", "round": 1, "exchange": 1, "seat": 0},)
    replaced = engine.choose_pass(first.table, 1, 1, 0, ["4S"], T0)
    assert replaced.events == ()  # the public already knows seat 0 has chosen
    assert replaced.table.round is not None and replaced.table.round.exchange.choices[0] == ("4S",)
    same = engine.choose_pass(replaced.table, 1, 1, 0, ["4s"], T0)
    assert same.table is replaced.table and same.outcome["resolved"] is False


def test_repeating_a_pass_of_a_resolved_exchange_moves_no_card() -> None:
    table = dealt(WORKED_EXAMPLE, "circle")
    resolved = exchange(table, [["4S"], ["9C"], ["8D"], ["9H"]]).table
    again = engine.choose_pass(resolved, 1, 1, 0, ["4S"], T0)
    assert again.table is resolved and again.events == ()
    assert again.outcome["resolved"] is True
    with pytest.raises(RuleViolation) as caught:
        engine.choose_pass(resolved, 1, 1, 0, ["QC"], T0)  # not what was passed then
    assert caught.value.code == "stale-exchange"


@pytest.mark.parametrize(("direction", "seat0_receives"), [("left", "9H"), ("right", "3C")])
def test_pass_direction(direction: str, seat0_receives: str) -> None:
    table = dealt(WORKED_EXAMPLE, "circle", direction=direction)
    done = exchange(table, [["4S"], ["3C"], ["8D"], ["9H"]]).table
    assert done.round is not None and seat0_receives in done.round.hands[0]


def test_pass_two_moves_two_cards() -> None:
    table = dealt(WORKED_EXAMPLE, "circle", pass_count=2)
    done = exchange(table, [["4S", "QC"], ["9C", "8C"], ["8D", "7D"], ["9H", "JH"]]).table
    assert done.round is not None
    assert done.round.hands[0] == ("AH", "KH", "JH", "9H", "8H", "5H", "2H")


def test_automatic_rejects_claims() -> None:
    table = dealt(WORKED_EXAMPLE, "circle", declaration="automatic")
    with pytest.raises(RuleViolation) as caught:
        engine.claim(table, 1, 0, T0)
    assert caught.value.code == "declaration-automatic"


def test_retrying_the_pass_that_ended_the_round_and_match_answers_alike() -> None:
    table = dealt(
        SIMULTANEOUS_TRIMMED, "classic", declaration="automatic", match={"target_wins": 1}
    )
    table = exchange(table, [["8H"], ["8D"], ["AD"]]).table
    last = engine.choose_pass(table, 1, 1, 3, ["8S"], T0)
    assert last.table.match_status is MatchStatus.WON
    again = engine.choose_pass(last.table, 1, 1, 3, ["8S"], T0)
    assert again.table is last.table and again.events == ()
    assert again.outcome == last.outcome
    with pytest.raises(RuleViolation) as caught:
        engine.choose_pass(last.table, 1, 1, 3, ["9C"], T0)
    assert caught.value.code == "round-over"


def test_automatic_win_on_the_last_allowed_exchange_beats_the_void() -> None:
    table = dealt(SIMULTANEOUS_TRIMMED, "classic", declaration="automatic", max_exchanges=1)
    done = exchange(table, [["8H"], ["8D"], ["AD"], ["8S"]]).table
    assert done.last.winners == (0, 1) and done.last.settled_by == "shared"


def test_the_card_just_received_may_be_passed_on() -> None:
    table = dealt(WORKED_EXAMPLE, "circle")
    table = exchange(table, [["4S"], ["9C"], ["8D"], ["9H"]]).table
    table = exchange(table, [["9H"], ["4S"], ["9C"], ["8D"]]).table  # each passes what it got
    assert table.round is not None
    assert [sorted(h) for h in table.round.hands] == [
        sorted(["AH", "KH", "8H", "5H", "2H", "QC", "8D"]),
        sorted(["3C", "4C", "5C", "6C", "7C", "8C", "9H"]),
        sorted(["2D", "3D", "4D", "5D", "6D", "7D", "4S"]),
        sorted(["JH", "2S", "3S", "5S", "6S", "7S", "9C"]),
    ]


def test_highest_card_counts_every_card_of_the_winning_suit() -> None:
    # win_count 5: seat 1's sixth spade is the first difference.
    hands = [
        ["AH", "KH", "QH", "JH", "TH", "2S", "3S"],
        ["AS", "KS", "QS", "JS", "TS", "9S", "8D"],
        ["2D", "3D", "4D", "5D", "6D", "7D", "9D"],
        ["2C", "3C", "4C", "5C", "6C", "7C", "9C"],
    ]
    done = dealt(hands, "mein-schiff", win_count=5, declaration="automatic")
    assert done.last.winners == (1,) and done.last.settled_by == "highest-card"


def test_a_hand_with_two_winning_suits_is_judged_by_its_better_suit() -> None:
    hands = [
        ["AH", "KH", "QH", "2S", "3S", "4S", "2C"],  # hearts A K Q beat spades
        ["AD", "KD", "JD", "5S", "6S", "7S", "3C"],
        ["8S", "9S", "TS", "JS", "QS", "KS", "4C"],  # spades K Q J loses to A K Q
        ["5C", "6C", "7C", "8C", "9C", "TC", "JC"],
    ]
    done = dealt(hands, "mein-schiff", win_count=3, declaration="automatic")
    assert done.last.winners == (0,)


def test_claim_window_does_not_apply_under_automatic() -> None:
    done = dealt(FOUR_WINNING, "circle", declaration="automatic")
    assert done.round is not None and done.round.status is RoundStatus.OVER
    assert done.round.window_closes_at_ms is None and done.last.winners == (0, 1, 2, 3)


def test_a_hand_size_override_brings_win_count_along() -> None:
    table = new_table("classic", 4, hand_size=5)
    assert (table.options.hand_size, table.options.win_count) == (5, 5)
    table = new_table("classic", 4, hand_size=5, win_count=4)
    assert (table.options.hand_size, table.options.win_count) == (5, 4)


def test_evolve_is_replace_for_the_state_records() -> None:
    from dataclasses import replace

    from service.games.ship.state import evolve

    table = dealt(WORKED_EXAMPLE, "circle")
    assert evolve(table, wins=(1, 0, 0, 0)) == replace(table, wins=(1, 0, 0, 0))
    assert table.round is not None
    assert evolve(table.round, number=9) == replace(table.round, number=9)
    with pytest.raises(TypeError):
        evolve(table, winz=(1, 0, 0, 0))
