"""Every preset of RULES.md 2.9 plays a scripted round (a submitted deal) to a
known result over HTTP, through the real app and a real Redis."""

from __future__ import annotations

from typing import Any

import pytest

from ..helpers import Table, TableClient, bearer, cards_in
from ..ship.test_engine import WORKED_EXAMPLE

# --- the simultaneous presets ------------------------------------------------------

# Four seats, trimmed deck 8..A. Passing left, seat 1 gets seat 0's 8S and
# passes its AH on: seven spades. Nobody else completes a suit.
TRIMMED_LEFT = (
    [
        ["8H", "9H", "TH", "JH", "QH", "KH", "8S"],
        ["AH", "9S", "TS", "JS", "QS", "KS", "AS"],
        ["8D", "9D", "TD", "JD", "QD", "KD", "AC"],
        ["8C", "9C", "TC", "JC", "QC", "KC", "AD"],
    ],
    [[["8S"], ["AH"], ["8D"], ["8C"]]],
    1,
)
# Passing right, seat 0 gets seat 1's AH and passes its 8S on: seven hearts.
TRIMMED_RIGHT = (TRIMMED_LEFT[0], [[["8S"], ["AH"], ["8D"], ["8C"]]], 0)
# Passing two left: seat 1 keeps five spades and gets seat 0's 8S 9S.
PASS_TWO = (
    [
        ["8H", "9H", "TH", "JH", "QH", "8S", "9S"],
        ["KH", "AH", "TS", "JS", "QS", "KS", "AS"],
        ["8D", "9D", "TD", "JD", "QD", "KD", "AC"],
        ["8C", "9C", "TC", "JC", "QC", "KC", "AD"],
    ],
    [[["8S", "9S"], ["KH", "AH"], ["8D", "9D"], ["8C", "9C"]]],
    1,
)
# Three cards from a full deck: seat 3's 4H completes seat 0's hearts.
WHEHEE = (
    [["2H", "3H", "2S"], ["3S", "4D", "5C"], ["6D", "7D", "8C"], ["4H", "9D", "TC"]],
    [[["2S"], ["5C"], ["8C"], ["4H"]]],
    0,
)
# RULES.md 2.10: seat 0 wins with seven hearts after two exchanges.
WORKED = (
    WORKED_EXAMPLE,
    [[["4S"], ["9C"], ["8D"], ["9H"]], [["QC"], ["4S"], ["9C"], ["JH"]]],
    0,
)

SIMULTANEOUS_SCRIPTS = {
    "classic": TRIMMED_LEFT,
    "circle": WORKED,
    "mein-schiff": WORKED,
    "pass-two": PASS_TWO,
    "pass-right": TRIMMED_RIGHT,
    "alternate": TRIMMED_LEFT,  # round 1 passes left
    "my-star-shines": TRIMMED_LEFT,
    "whehee": WHEHEE,
}


@pytest.mark.parametrize("preset", sorted(SIMULTANEOUS_SCRIPTS))
def test_every_simultaneous_preset_plays_its_scripted_round(
    tables: TableClient, preset: str
) -> None:
    deal, exchanges, winner = SIMULTANEOUS_SCRIPTS[preset]
    t = tables.create(4, preset, claim_window_ms=0)
    assert tables.deal(t, deal).status_code == 201
    for number, passes in enumerate(exchanges, start=1):
        answers = [tables.pass_(t, 1, number, seat, cards) for seat, cards in enumerate(passes)]
        assert [a.get_json()["resolved"] for a in answers] == [False, False, False, True]
    others = [s for s in range(4) if s != winner]
    assert tables.claim(t, 1, others[-1]).get_json()["code"] == "claim-not-winning"
    body = tables.claim(t, 1, winner).get_json()
    assert body["result"]["winners"] == [winner]
    assert body["result"]["settled_by"] == "sole"
    assert body["result"]["exchanges"] == len(exchanges)
    view = tables.public(t)
    assert [s["wins"] for s in view["seats"]] == [int(s == winner) for s in range(4)]
    assert view["awaiting"] == {"action": "deal", "seats": [], "until_ms": None}


# --- Ochse leg dich!: chain passing and chips --------------------------------------

# skat32, dealer 0. Seat 1 passes first (to seat 2).
OCHSE_DEAL = [
    ["QD", "KD", "AD", "TS", "JS", "QS", "KS", "AS"],  # longest: 5 spades
    ["AC", "7H", "8H", "9H", "TH", "JH", "QH", "KH"],  # gives AC; then 7 hearts in 7 cards
    ["7C", "8C", "9C", "TC", "JC", "QC", "KC", "7D"],  # 7 clubs; AC makes 8 of nine cards
    ["AH", "8D", "9D", "TD", "JD", "7S", "8S", "9S"],  # longest: 4 diamonds
]


def test_ochse_chain_round_won_holding_nine_before_passing_with_chips(
    tables: TableClient,
) -> None:
    t = tables.create(4, "ochse")
    assert tables.deal(t, OCHSE_DEAL).status_code == 201
    view = tables.public(t)
    assert view["awaiting"] == {"action": "pass", "seats": [1], "until_ms": None}
    assert view["round"]["choosers"] == [1]

    # Only the seat on turn may pass; the answer says whose turn it is.
    early = tables.pass_(t, 1, 1, 2, ["7D"])
    assert early.status_code == 409
    body = early.get_json()
    assert body["code"] == "not-your-turn"
    assert body["detail"] == "Seat 2 does not pass in exchange 1; it is seat 1's turn."
    assert body["waiting_for"] == [1] and body["current_exchange"] == 1

    passed = tables.pass_(t, 1, 1, 1, ["AC"]).get_json()
    assert passed["resolved"] is True and passed["waiting_for"] == []
    assert [len(tables.hand(t, s)) for s in range(4)] == [8, 7, 9, 8]
    seat2 = tables.client.get(f"{t.url}/seats/2", headers=bearer(t.seats[2])).get_json()
    assert seat2["received"] == ["AC"] and seat2["to_choose"] is True
    assert tables.public(t)["awaiting"]["seats"] == [2]

    # Seat 2 holds nine cards, eight of them clubs, and declares before passing.
    won = tables.claim(t, 1, 2).get_json()
    result = won["result"]
    assert result["winners"] == [2] and result["settled_by"] == "sole"
    assert result["hands"] == [
        {"seat": 2, "cards": ["7D", "AC", "KC", "QC", "JC", "TC", "9C", "8C", "7C"]}
    ]
    # Chips, by hand: seat 0's longest suit has 5 (pays 3), seat 1 holds seven
    # hearts in seven cards (pays 1), seat 3's longest has 4 (pays 4).
    assert result["chips"] == [-3, -1, 8, -4]
    view = tables.public(t)
    assert [s["chips"] for s in view["seats"]] == [-3, -1, 8, -4]
    assert [(s["seat"], s["points"], s["chips"]) for s in view["standings"]] == [
        (2, 1, 8),
        (1, 0, -1),
        (0, 0, -3),
        (3, 0, -4),
    ]
    # Nothing of the losers' hands is shown.
    assert not cards_in(view) & {"7H", "QD"}


# --- Matrimony: a whole chain circuit ----------------------------------------------

# The whole deck, dealer 0. Seat 1 holds twelve spades; the dealer holds AS.
MATRIMONY_DEAL = [
    ["AS", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC"],
    ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "2H"],
    ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "2D", "3D", "4D", "5D", "6D", "7D"],
    ["TH", "JH", "QH", "KH", "AH", "8D", "9D", "TD", "JD", "QD", "KD", "AD", "2C"],
]


def test_matrimony_circuit_ends_with_thirteen_spades(tables: TableClient) -> None:
    t = tables.create(4, "matrimony")
    assert tables.deal(t, MATRIMONY_DEAL).status_code == 201
    refused = tables.pass_(t, 1, 1, 0, ["AS"])
    assert refused.get_json()["code"] == "not-your-turn"
    # Turns go clockwise from the dealer's left: seats 1, 2, 3, then the dealer.
    for exchange, (seat, card) in enumerate([(1, "2H"), (2, "2D"), (3, "2D")], start=1):
        assert tables.pass_(t, 1, exchange, seat, [card]).get_json()["resolved"] is True
    assert [len(tables.hand(t, s)) for s in range(4)] == [14, 12, 13, 13]
    # The dealer holds twelve clubs and must pass; seat 1 cannot declare yet.
    assert tables.claim(t, 1, 1).get_json()["detail"] == (
        "The hand holds 12 spades; 13 cards of one suit are needed."
    )
    assert tables.pass_(t, 1, 4, 0, ["AS"]).get_json()["resolved"] is True
    assert [len(tables.hand(t, s)) for s in range(4)] == [13, 13, 13, 13]
    seat1 = tables.client.get(f"{t.url}/seats/1", headers=bearer(t.seats[1])).get_json()
    assert (seat1["passed"], seat1["received"]) == (["2H"], ["AS"])
    result = tables.claim(t, 1, 1).get_json()["result"]
    assert result["winners"] == [1] and result["exchanges"] == 4
    assert result["chips"] == []
    assert tables.public(t)["seats"][1]["chips"] is None


# --- Foster: swaps and the showdown ------------------------------------------------

# Dealer 0. Swap 1 is seats 1 and 2; seat 1 trades 9S for 4H and holds three
# hearts (sum 9), but seat 3 was dealt three clubs (sum 31).
FOSTER_DECLARED = [["7S", "8D", "2C"], ["2H", "3H", "9S"], ["4H", "5D", "6D"], ["AC", "KC", "QC"]]
# Round 2, dealer 1: every swap trades the one club each seat holds, so the
# pairs stay: seats 3 (AS KS) and 0 (AH KH) tie on 21; seat 1 has 15, seat 2
# no two of a suit.
FOSTER_CIRCUITS = [["AH", "KH", "2C"], ["7D", "8D", "3C"], ["2S", "3H", "4C"], ["AS", "KS", "5C"]]


def _club(tables: TableClient, t: Table, seat: int) -> str:
    return next(c for c in tables.hand(t, seat) if c.endswith("C"))


def test_foster_declaration_calls_a_showdown_won_by_a_higher_sum(tables: TableClient) -> None:
    t = tables.create(4, "foster")
    assert tables.deal(t, FOSTER_DECLARED).status_code == 201
    assert tables.public(t)["round"]["choosers"] == [1, 2]
    assert tables.pass_(t, 1, 1, 3, ["AC"]).get_json()["detail"] == (
        "Seat 3 does not pass in exchange 1; it is the swap between seats 1 and 2."
    )
    # Both choose blind: seat 1 may change its mind until seat 2 has chosen.
    assert tables.pass_(t, 1, 1, 1, ["2H"]).get_json()["waiting_for"] == [2]
    seat2 = tables.client.get(f"{t.url}/seats/2", headers=bearer(t.seats[2])).get_json()
    assert seat2["pending"] is None and "2H" not in cards_in(seat2)
    assert tables.pass_(t, 1, 1, 1, ["9S"]).get_json()["resolved"] is False
    assert tables.pass_(t, 1, 1, 2, ["4H"]).get_json()["resolved"] is True
    assert tables.hand(t, 1) == ["4H", "3H", "2H"]
    assert tables.public(t)["round"]["choosers"] == [2, 3]
    # Before the showdown no hand is shown.
    assert tables.public(t)["last_result"] is None and "AC" not in cards_in(tables.public(t))

    body = tables.claim(t, 1, 1).get_json()
    assert body["result"]["winners"] == [3]
    assert body["result"]["settled_by"] == "showdown"
    assert body["result"]["hands"] == [
        {"seat": 0, "cards": ["7S", "8D", "2C"]},
        {"seat": 1, "cards": ["4H", "3H", "2H"]},
        {"seat": 2, "cards": ["9S", "6D", "5D"]},
        {"seat": 3, "cards": ["AC", "KC", "QC"]},
    ]
    assert [s["wins"] for s in tables.public(t)["seats"]] == [0, 0, 0, 1]


def test_foster_circuits_end_in_two_card_sums_tie_to_the_dealers_left(
    tables: TableClient,
) -> None:
    t = tables.create(4, "foster", first_dealer=1)
    assert tables.deal(t, FOSTER_CIRCUITS).status_code == 201
    # Two circuits of four swaps, from the dealer's left: 2-3, 3-0, 0-1, 1-2.
    pairs = [(2, 3), (3, 0), (0, 1), (1, 2)] * 2
    for exchange, (a, b) in enumerate(pairs, start=1):
        view = tables.public(t)
        assert view["round"]["choosers"] == sorted([a, b])
        first = tables.pass_(t, 1, exchange, a, [_club(tables, t, a)]).get_json()
        last = tables.pass_(t, 1, exchange, b, [_club(tables, t, b)]).get_json()
        assert (first["resolved"], last["resolved"]) == (False, True)
    view = tables.public(t)
    result = view["last_result"]
    # By hand: the clubs went 2C 3C 4C 5C -> seat 0 5C, 1 2C, 2 4C, 3 3C.
    assert result["hands"] == [
        {"seat": 0, "cards": ["AH", "KH", "5C"]},
        {"seat": 1, "cards": ["8D", "7D", "2C"]},
        {"seat": 2, "cards": ["2S", "3H", "4C"]},
        {"seat": 3, "cards": ["AS", "KS", "3C"]},
    ]
    # Seats 0 and 3 both have 21; seat 3 sits nearer the dealer's (seat 1's) left.
    assert result["winners"] == [3] and result["settled_by"] == "showdown-two-cards"
    assert result["exchanges"] == 8
    assert view["round"]["status"] == "over"
    late = tables.pass_(t, 1, 9, 2, ["4C"])
    assert late.status_code == 409 and late.get_json()["code"] == "round-over"


def test_foster_claim_before_the_first_swap_shows_every_hand(tables: TableClient) -> None:
    t = tables.create(3, "foster")
    deal = [["2S", "9D", "TC"], ["AH", "KH", "QH"], ["3S", "4S", "5S"]]
    assert tables.deal(t, deal).status_code == 201
    result = tables.claim(t, 1, 2).get_json()["result"]
    # Both three-suit hands compete; 31 beats 12, whoever declared.
    assert result["winners"] == [1] and len(result["hands"]) == 3


def test_highest_sum_override_settles_simultaneous_automatic_winners(
    tables: TableClient,
) -> None:
    t = tables.create(4, "circle", declaration="automatic", simultaneous_wins="highest-sum")
    deal = [
        ["2H", "3H", "4H", "5H", "6H", "7H", "8H"],  # 35
        ["2S", "3S", "4S", "5S", "6S", "7S", "AS"],  # 38
        ["2D", "3D", "4D", "5D", "6D", "7D", "9C"],
        ["2C", "3C", "4C", "5C", "6C", "7C", "8D"],
    ]
    body: Any = tables.deal(t, deal).get_json()
    result = body["table"]["last_result"]
    assert result["winners"] == [1] and result["settled_by"] == "highest-sum"
