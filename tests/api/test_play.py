"""Whole games over HTTP through the real app and a real Redis."""

from __future__ import annotations

import time
from typing import Any

from service.games.cards import STANDARD_DECK, sort_cards

from ..helpers import TableClient, bearer
from ..ship.test_engine import SIMULTANEOUS_TRIMMED, WORKED_EXAMPLE

WINNING_AT_DEAL = [
    ["AH", "KH", "QH", "JH", "TH", "9H", "8H"],
    ["AS", "KS", "QS", "JS", "TS", "9S", "8D"],
    ["AD", "KD", "QD", "JD", "TD", "9D", "8S"],
    ["AC", "KC", "QC", "JC", "TC", "9C", "8C"],
]


def test_worked_example_of_rules_2_10_over_http(tables: TableClient) -> None:
    t = tables.create(4, "circle", claim_window_ms=200)
    dealt = tables.deal(t, WORKED_EXAMPLE)
    assert dealt.status_code == 201
    assert dealt.headers["Location"] == f"{t.url}/rounds/1"
    assert tables.hand(t, 0) == ["4S", "AH", "KH", "8H", "5H", "2H", "QC"]

    for seat, card in enumerate(["4S", "9C", "8D"]):
        r = tables.pass_(t, 1, 1, seat, [card])
        assert r.status_code == 200 and r.get_json()["resolved"] is False
    last = tables.pass_(t, 1, 1, 3, ["9H"])
    assert last.get_json()["resolved"] is True
    seat0 = tables.client.get(f"{t.url}/seats/0", headers=bearer(t.seats[0])).get_json()
    assert seat0["received"] == ["9H"] and seat0["exchange"] == 2

    refused = tables.claim(t, 1, 0)
    assert refused.status_code == 422
    assert (
        refused.get_json()["detail"] == "The hand holds 6 hearts; 7 cards of one suit are needed."
    )

    for seat, card in enumerate(["QC", "4S", "9C", "JH"]):
        tables.pass_(t, 1, 2, seat, [card])
    assert tables.hand(t, 0) == ["AH", "KH", "JH", "9H", "8H", "5H", "2H"]

    accepted = tables.claim(t, 1, 0)
    assert accepted.status_code == 200
    body = accepted.get_json()
    assert body["accepted"] is True and body["round_status"] == "claim-window"
    time.sleep(0.25)
    view = tables.public(t)
    assert [view["last_result"]] == [
        {
            "round": 1,
            "dealer": 0,
            "exchanges": 2,
            "winners": [0],
            "settled_by": "sole",
            "hands": [{"seat": 0, "cards": ["AH", "KH", "JH", "9H", "8H", "5H", "2H"]}],
            "chips": [],
            "set_aside": list(
                sort_cards(c for c in STANDARD_DECK if all(c not in h for h in WORKED_EXAMPLE))
            ),
        }
    ]
    assert [s["wins"] for s in view["seats"]] == [1, 0, 0, 0]
    types = [e["type"] for e in tables.events(t)]
    assert types == ["table-created", "round-dealt"] + ["pass-chosen"] * 4 + [
        "exchange-resolved",
        "claim-rejected",
    ] + ["pass-chosen"] * 4 + ["exchange-resolved", "claim-accepted", "round-won"]
    # The round-won event is in the log from the instant the window closed, as
    # in the view; the first write after it stores it as it was shown.
    shown = tables.events(t, 14)
    assert view["last_event"] == 15
    assert tables.deal(t).status_code == 201
    assert [e["type"] for e in tables.events(t, 14)] == ["round-won", "round-dealt"]
    assert tables.events(t, 14)[0] == shown[0]


def test_a_classic_match_to_five_wins_with_the_dealer_rotating(tables: TableClient) -> None:
    t = tables.create(4, "classic", first_dealer=2)
    dealers = []
    for round_no in range(1, 6):
        r = tables.deal(t, WINNING_AT_DEAL)
        assert r.status_code == 201
        dealers.append(r.get_json()["dealer"])
        claim = tables.claim(t, round_no, 3)
        assert claim.status_code == 200
    assert dealers == [2, 3, 0, 1, 2]
    view = tables.public(t)
    assert view["match"] == {"status": "won", "winners": [3], "fastest_win": []}
    assert [s["wins"] for s in view["seats"]] == [0, 0, 0, 5]
    again = tables.deal(t)
    assert again.status_code == 409 and again.get_json()["code"] == "match-over"


def test_shuffled_rounds_can_be_played_to_a_win(tables: TableClient) -> None:
    t = tables.create(4, "classic", first_dealer="draw")
    assert len(t.created["table"]["draw"]) >= 1
    assert tables.deal(t).status_code == 201
    hands = {s: tables.hand(t, s) for s in range(4)}
    assert sorted(c for h in hands.values() for c in h) == sorted(
        c for c in STANDARD_DECK if c[0] in "89TJQKA"
    )
    # Seat i collects suit "SHDC"[i] and passes anything else: every card
    # travels left to its collector, so some hand must win within 28 exchanges.
    winner = None
    for exchange in range(1, 30):
        winner = next((s for s, h in hands.items() if h and {c[1] for c in h} == {"SHDC"[s]}), None)
        if winner is not None:
            assert tables.claim(t, 1, winner).status_code == 200
            break
        for seat in range(4):
            give = next(c for c in hands[seat] if c[1] != "SHDC"[seat])
            tables.pass_(t, 1, exchange, seat, [give])
        hands = {s: tables.hand(t, s) for s in range(4)}
    assert winner is not None
    view = tables.public(t)
    assert view["last_result"]["winners"] == [winner]


def test_claim_before_the_first_exchange(tables: TableClient) -> None:
    t = tables.create(4)
    tables.deal(t, WINNING_AT_DEAL)
    r = tables.claim(t, 1, 0)
    assert r.status_code == 200
    assert r.get_json()["result"]["winners"] == [0] and r.get_json()["result"]["exchanges"] == 0


def test_claim_while_half_chosen_cancels_the_chosen_passes(tables: TableClient) -> None:
    t = tables.create(4)
    tables.deal(t, WINNING_AT_DEAL)
    assert tables.pass_(t, 1, 1, 1, ["8D"]).status_code == 200
    assert tables.pass_(t, 1, 1, 2, ["8S"]).status_code == 200
    assert [s["chosen"] for s in tables.public(t)["seats"]] == [False, True, True, False]
    assert tables.claim(t, 1, 3).status_code == 200
    assert tables.hand(t, 1) == ["AS", "KS", "QS", "JS", "TS", "9S", "8D"]
    assert tables.hand(t, 2) == ["8S", "AD", "KD", "QD", "JD", "TD", "9D"]
    late = tables.pass_(t, 1, 1, 0, ["8H"])
    assert late.status_code == 409 and late.get_json()["code"] == "round-over"


def test_automatic_simultaneous_wins_in_a_trimmed_deck_share_the_round(tables: TableClient) -> None:
    t = tables.create(4, "classic", declaration="automatic")
    tables.deal(t, SIMULTANEOUS_TRIMMED)
    for seat, card in enumerate(["8H", "8D", "AD"]):
        tables.pass_(t, 1, 1, seat, [card])
    r = tables.pass_(t, 1, 1, 3, ["8S"])
    assert r.get_json()["round_status"] == "over"
    result = tables.public(t)["last_result"]
    assert result["winners"] == [0, 1] and result["settled_by"] == "shared"


def test_stale_exchange_number_is_409_with_the_current_numbers(tables: TableClient) -> None:
    t = tables.create(4)
    tables.deal(t, WINNING_AT_DEAL)
    r = tables.pass_(t, 1, 3, 0, ["8H"])
    assert r.status_code == 409
    assert r.content_type == "application/problem+json"
    body = r.get_json()
    assert (body["code"], body["current_round"], body["current_exchange"]) == (
        "stale-exchange",
        1,
        1,
    )


def test_repeated_pass_answers_alike_and_moves_nothing_twice(tables: TableClient) -> None:
    t = tables.create(4)
    tables.deal(t, WINNING_AT_DEAL)
    first = tables.pass_(t, 1, 1, 0, ["8H"]).get_json()
    assert tables.pass_(t, 1, 1, 0, ["8h"]).get_json() == first
    for seat, card in ((1, "8D"), (2, "8S"), (3, "8C")):
        tables.pass_(t, 1, 1, seat, [card])
    hands = [tables.hand(t, s) for s in range(4)]
    again = tables.pass_(t, 1, 1, 0, ["8H"])
    assert again.status_code == 200 and again.get_json()["resolved"] is True
    assert [tables.hand(t, s) for s in range(4)] == hands
    assert len([e for e in tables.events(t) if e["type"] == "pass-chosen"]) == 4


def test_public_view_and_events_never_show_a_hidden_card(tables: TableClient, client: Any) -> None:
    t = tables.create(4, "mein-schiff")
    tables.deal(t)
    hands = {s: tables.hand(t, s) for s in range(4)}
    for seat in range(3):
        tables.pass_(t, 1, 1, seat, [hands[seat][0]])
    public_text = client.get(t.url).get_data(as_text=True) + client.get(f"{t.url}/events").get_data(
        as_text=True
    )
    for card in STANDARD_DECK:
        assert f'"{card}"' not in public_text


def test_etag_gives_304_until_the_view_changes(tables: TableClient, client: Any) -> None:
    t = tables.create(4)
    first = client.get(t.url)
    etag = first.headers["ETag"]
    assert client.get(t.url, headers={"If-None-Match": etag}).status_code == 304
    tables.deal(t)
    assert client.get(t.url, headers={"If-None-Match": etag}).status_code == 200


def test_round_resource_shows_the_current_round_then_its_result(
    tables: TableClient, client: Any
) -> None:
    t = tables.create(4)
    tables.deal(t, WINNING_AT_DEAL)
    current = client.get(f"{t.url}/rounds/1").get_json()
    assert current["current"]["status"] == "passing" and current["result"] is None
    tables.claim(t, 1, 0)
    done = client.get(f"{t.url}/rounds/1").get_json()
    assert done["result"]["winners"] == [0]
    assert client.get(f"{t.url}/rounds/2").status_code == 404


def test_open_match_finish_and_delete(tables: TableClient, client: Any, redis_client: Any) -> None:
    t = tables.create(4, "mein-schiff")
    tables.deal(
        t,
        [
            ["AH", "KH", "QH", "JH", "TH", "9H", "8H"],
            ["AS", "KS", "QS", "JS", "TS", "9S", "2D"],
            ["AD", "KD", "QD", "JD", "TD", "9D", "2S"],
            ["AC", "KC", "QC", "JC", "TC", "9C", "8C"],
        ],
    )
    tables.claim(t, 1, 0)
    finished = client.post(f"{t.url}/finish", headers=bearer(t.host))
    assert finished.status_code == 200
    assert finished.get_json()["match"] == {"status": "finished", "winners": [0], "fastest_win": []}
    assert client.post(f"{t.url}/finish", headers=bearer(t.host)).status_code == 409
    assert (
        redis_client.exists(f"referee:{{{t.table_id}}}:table", f"referee:{{{t.table_id}}}:events")
        == 2
    )
    assert client.delete(t.url, headers=bearer(t.seats[0])).status_code == 403
    assert client.delete(t.url, headers=bearer(t.host)).status_code == 204
    assert redis_client.keys(f"*{t.table_id}*") == []
    assert client.get(t.url).status_code == 404


def test_finish_abandons_a_match_with_its_own_end(tables: TableClient, client: Any) -> None:
    t = tables.create(4)
    tables.deal(t)
    r = client.post(f"{t.url}/finish", headers=bearer(t.host))
    assert r.get_json()["match"] == {"status": "abandoned", "winners": [], "fastest_win": []}
    assert [e["type"] for e in tables.events(t)][-2:] == ["round-abandoned", "match-abandoned"]


def test_an_invalid_claim_while_half_chosen_leaves_the_chosen_passes(tables: TableClient) -> None:
    t = tables.create(4)
    tables.deal(t, WINNING_AT_DEAL)
    tables.pass_(t, 1, 1, 0, ["8H"])
    assert tables.claim(t, 1, 1).status_code == 422  # seat 1 holds six spades
    assert [s["chosen"] for s in tables.public(t)["seats"]] == [True, False, False, False]
    seat0 = tables.client.get(f"{t.url}/seats/0", headers=bearer(t.seats[0])).get_json()
    assert seat0["pending"] == ["8H"]


def test_two_winning_seats_claiming_at_once_with_no_window_give_one_winner(app: Any) -> None:
    """Window 0: the first valid claim to commit wins outright; the other is told
    the round is over. Real threads, each with its own client, ten times."""
    import threading

    for _ in range(10):
        tables = TableClient(app.test_client())
        t = tables.create(4, "mein-schiff")
        tables.deal(t, [
            ["AS", "KS", "QS", "JS", "TS", "9S", "2S"], ["AH", "KH", "QH", "JH", "TH", "9H", "3H"],
            ["2D", "3D", "4D", "5D", "6D", "7D", "8C"], ["2C", "3C", "4C", "5C", "6C", "7C", "8D"],
        ])  # fmt: skip
        barrier = threading.Barrier(2)
        answers: dict[int, Any] = {}

        def claim(seat: int, t: Any = t, barrier: Any = barrier, answers: Any = answers) -> None:
            client = TableClient(app.test_client())
            barrier.wait()
            answers[seat] = client.claim(t, 1, seat)

        threads = [threading.Thread(target=claim, args=(s,)) for s in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        statuses = sorted(r.status_code for r in answers.values())
        assert statuses == [200, 409]
        winner = next(s for s, r in answers.items() if r.status_code == 200)
        assert tables.public(t)["last_result"]["winners"] == [winner]


def test_no_hidden_card_after_a_claim_or_a_void_round(tables: TableClient, client: Any) -> None:
    hands = [
        ["AH", "KH", "QH", "JH", "TH", "9H", "8H"], ["AS", "KS", "QS", "JS", "TS", "9S", "2D"],
        ["AD", "KD", "QD", "JD", "TD", "9D", "2S"], ["AC", "KC", "QC", "JC", "TC", "9C", "8C"],
    ]  # fmt: skip
    t = tables.create(4, "mein-schiff", max_exchanges=1, first_dealer=3)
    tables.deal(t, hands)
    tables.claim(t, 1, 0)  # seat 0's hand is shown; the rest stays hidden
    # RULES.md 2.11: the cards the full deck set aside are shown once the round is over.
    set_aside = [c for c in STANDARD_DECK if not any(c in h for h in hands)]
    assert len(set_aside) == 24
    shown = set(hands[0]) | set(set_aside)
    public = (
        client.get(t.url).get_data(as_text=True)
        + client.get(f"{t.url}/events").get_data(as_text=True)
        + client.get(f"{t.url}/rounds/1").get_data(as_text=True)
    )
    for card in STANDARD_DECK:
        assert (f'"{card}"' in public) == (card in shown), card
    assert set(tables.public(t)["last_result"]["set_aside"]) == set(set_aside)
    tables.deal(t)  # round 2: shuffled, played to a void
    hands2 = {s: tables.hand(t, s) for s in range(4)}
    for seat in range(4):
        tables.pass_(t, 2, 1, seat, [hands2[seat][0]])
    void = tables.public(t)["last_result"]
    assert void["round"] == 2
    assert void["settled_by"] == "void" and void["hands"] == []
    dealt2 = {c for h in hands2.values() for c in h}
    assert set(void["set_aside"]) == set(STANDARD_DECK) - dealt2
    for seat in range(4):  # a seat sees its own cards and what it passed and received only
        mine = client.get(f"{t.url}/seats/{seat}", headers=bearer(t.seats[seat])).get_data(
            as_text=True
        )
        own = set(tables.hand(t, seat)) | set(hands2[seat])
        for card in STANDARD_DECK:
            if f'"{card}"' in mine:
                assert card in own, (seat, card)


def test_event_log_pages_with_a_cursor(tables: TableClient, client: Any) -> None:
    t = tables.create(4)
    tables.deal(t, WINNING_AT_DEAL)
    tables.pass_(t, 1, 1, 0, ["8H"])
    tables.claim(t, 1, 0)  # 5 events: created, dealt, chosen, accepted, won
    pages, after, more = [], 0, True
    while more:
        page = client.get(f"{t.url}/events?after={after}&limit=2").get_json()
        pages.append([e["seq"] for e in page["events"]])
        after, more = page["next_after"], page["more"]
    assert pages == [[1, 2], [3, 4], [5]]
    last = client.get(f"{t.url}/events?after=5").get_json()
    assert last == {"events": [], "next_after": 5, "more": False, "last_event": 5, "oldest_seq": 1}
