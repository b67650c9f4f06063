"""The May I? engine: the deal, a turn's steps, refusals, May I?, going
out, the endings and scoring (RULES.md 4.4-4.8)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from service.games.errors import Kind, RuleViolation
from service.games.may_i import codec, engine, views
from service.games.may_i.state import MatchStatus, Step, Table

from .common import T0, all_cards, dealt, move, new_table, position


def refused(code: str, fn: object, *args: object) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        fn(*args)  # type: ignore[operator]
    assert info.value.code == code, info.value.detail
    return info.value


def test_the_deal() -> None:
    table = new_table()
    t = engine.start_round(table, random.Random(3), T0, {})
    rnd = t.table.round
    assert rnd is not None
    assert [len(h) for h in rnd.hands] == [10] * 4
    assert len(rnd.pile) == 1 and len(rnd.stock) == 104 - 41
    assert rnd.on_turn == 1 and rnd.step is Step.DRAW
    assert t.events[0]["stock"] == 63 and t.events[0]["contract"] == "2 sets"
    assert sum(all_cards(t.table).values()) == 104
    assert codec.decode(codec.encode(t.table)) == t.table


def test_one_state_text_decodes_once_per_process_as_str_or_bytes() -> None:
    dealt_table = engine.start_round(new_table(), random.Random(3), T0, {}).table
    text = codec.encode(dealt_table)
    first = codec.decode(text.encode())
    assert codec.decode(text) is first and first == dealt_table
    # Another state (another deal) is another object.
    other = engine.start_round(new_table(), random.Random(4), T0, {}).table
    assert codec.decode(codec.encode(other)) is not first
    assert codec.decode(codec.encode(other)) == other


def test_submitted_deal_must_be_the_decks() -> None:
    table = dealt({1: ["5H", "5S"]}, discard="7C", stock_top=["9D"])
    rnd = table.round
    assert rnd is not None
    assert rnd.pile == ("7C",) and rnd.stock[-1] == "9D"
    assert "5H" in rnd.hands[1]
    deal = {"hands": [list(h) for h in rnd.hands], "stock": ["9D"], "discard": "7C"}
    violation = refused("deal-invalid", engine.start_round, new_table(), random.Random(1), T0, deal)
    assert "missing" in violation.errors[-1].detail


def test_the_steps_of_a_turn() -> None:
    table = dealt({1: ["5H", "5S", "5C", "9D", "9H", "9S"]}, discard="7C", stock_top=["KD"])
    refused("must-draw-first", move, table, 1, "discard", "5H")
    refused("must-draw-first", move, table, 1, "draw")
    refused("not-your-turn", move, table, 2, "take_discard")
    t = move(table, 1, "take_discard")
    assert t.events[0] == {"type": "discard-taken", "round": 1, "move": 1, "seat": 1, "card": "7C"}
    table = t.table
    again = engine.turn(table, 1, 1, 1, "take_discard", None, T0)  # a repeat
    assert again.table is table and not again.events and again.outcome["move"] == 1
    refused("stale-move", engine.turn, table, 1, 1, 1, "draw", None, T0)
    refused("already-drawn", move, table, 1, "draw")
    refused("already-drawn", move, table, 1, "decline")
    refused("not-laid-down", move, table, 1, "lay_off", {"card": "5H", "meld": 1})
    v = refused("contract-invalid", move, table, 1, "lay_down", [["5H", "5S"], ["9D", "9H", "9S"]])
    assert "meld 1" in v.detail and "set of 2" in v.detail
    assert v.kind is Kind.INVALID
    t = move(table, 1, "lay_down", [["5H", "5S", "5C"], ["9D", "9H", "9S"]])
    assert [m.id for m in t.table.round.melds] == [1, 2]  # type: ignore[union-attr]
    refused("already-laid-down", move, t.table, 1, "lay_down", [["5H", "5S", "5C"]])
    t = move(t.table, 1, "discard", "7C")
    rnd = t.table.round
    assert rnd is not None and rnd.on_turn == 2 and rnd.step is Step.DRAW and rnd.pile[-1] == "7C"


def test_discard_that_fits_is_refused_unless_every_card_fits() -> None:
    table = dealt()
    table = position(
        table,
        hands={1: ["5D", "KC"]},
        melds=[(0, ["5H", "5S", "5C"])],
        step=Step.PLAY,
        on_turn=1,
    )
    v = refused("discard-fits", move, table, 1, "discard", "5D")
    assert v.kind is Kind.INVALID and "meld 1" in v.detail
    assert move(table, 1, "discard", "KC").table.round.hands[1] == ("5D",)  # type: ignore[union-attr]
    every = position(table, hands={1: ["5D", "5H"]})
    t = move(every, 1, "discard", "5D")
    assert t.table.round.hands[1] == ("5H",)  # type: ignore[union-attr]


def _declined(window: int = 5000, pile: tuple[str, ...] = ("2C",)) -> Table:
    """4 seats, dealer 0, seat 1 on turn has declined the top discard at T0."""
    table = dealt(may_i_window_ms=window)
    rnd = table.round
    assert rnd is not None
    table = replace(table, round=replace(rnd, pile=pile, pile_by=(-1,) * len(pile)))
    return move(table, 1, "decline").table


def _hand_sizes(table: Table) -> list[int]:
    assert table.round is not None
    return [len(h) for h in table.round.hands]


@pytest.mark.parametrize(
    ("answers", "taker", "extra"),
    [
        ({0: True, 2: True}, 3, 1),  # all allow: the asker
        ({2: False}, 2, 1),  # seat 2 (before the asker) denies
        ({0: False, 2: True}, 0, 2),  # only seat 0 (after the asker) denies
        ({}, 3, 1),  # nobody answers: the window closes, as all allow
    ],
)
def test_may_i_gives_the_card(answers: dict[int, bool], taker: int, extra: int) -> None:
    table = _declined(pile=("7H", "2C"))
    rnd = table.round
    assert rnd is not None and rnd.step is Step.MAY_I and rnd.offer is not None
    assert rnd.offer.card == "2C" and rnd.offer.until_ms == T0 + 5000
    table = engine.ask(table, 1, 1, 3, T0 + 10).table
    events = []
    for seat, allow in answers.items():
        t = engine.answer(table, 1, 1, seat, allow, T0 + 20)
        table = t.table
        events.extend(t.events)
    if not events or events[-1]["type"] == "may-i-answered" and len(answers) < 2:
        t = engine.settle_due(table, T0 + 5000)
        table = t.table
        events.extend(t.events)
    given = next(e for e in events if e["type"] == "may-i-given")
    assert given["seat"] == taker and given["card"] == "2C" and given["stock_cards"] == extra
    assert _hand_sizes(table)[taker] == 10 + 1 + extra
    rnd = table.round
    assert rnd is not None
    # The next discard is offered; the turn stays with seat 1.
    assert rnd.step is Step.MAY_I and rnd.offer is not None and rnd.offer.card == "7H"
    assert rnd.offer.n == 2 and rnd.on_turn == 1
    table = engine.settle_due(table, rnd.offer.until_ms).table
    rnd = table.round
    assert rnd is not None and rnd.step is Step.STOCK and rnd.on_turn == 1
    t = move(table, 1, "draw")
    assert t.events[-1] == {"type": "stock-drawn", "round": 1, "move": 2, "seat": 1, "count": 1}
    assert sum(all_cards(t.table).values()) == 104 + 1  # the test's pile had one card more


def test_may_i_refusals() -> None:
    table = dealt()
    refused("may-i-not-open", engine.ask, table, 1, 1, 3, T0)
    table = _declined()
    refused("may-i-not-yours", engine.ask, table, 1, 1, 1, T0)
    refused("may-i-not-asked", engine.answer, table, 1, 1, 2, True, T0)
    table = engine.ask(table, 1, 1, 3, T0 + 1).table
    assert engine.ask(table, 1, 1, 3, T0 + 2).table is table  # a repeat
    refused("may-i-taken", engine.ask, table, 1, 1, 2, T0 + 2)
    refused("may-i-not-yours", engine.answer, table, 1, 1, 3, True, T0 + 2)
    refused("may-i-not-yours", engine.answer, table, 1, 1, 1, True, T0 + 2)
    table = engine.answer(table, 1, 1, 2, True, T0 + 3).table
    assert engine.answer(table, 1, 1, 2, True, T0 + 4).table is table
    refused("already-answered", engine.answer, table, 1, 1, 2, False, T0 + 4)
    refused("may-i-open", move, table, 1, "draw", None, T0 + 4)
    # After the window: 409, and the silence of seat 0 allowed (the game's
    # due, which the refusal does not carry: a refusal keeps nothing).
    v = refused("may-i-closed", engine.answer, table, 1, 1, 0, False, T0 + 5000)
    assert v.kind is Kind.CONFLICT and v.record == ()
    due = engine.settle_due(table, T0 + 5000)
    assert due.table.round is not None
    assert len(due.table.round.hands[3]) == 12 and len(due.table.round.hands[0]) == 10
    until = table.round.offer.until_ms if table.round and table.round.offer else None
    assert [(e["type"], e["at_ms"]) for e in due.events] == [("may-i-given", until)]


def test_own_discard_may_not_be_asked_for() -> None:
    table = dealt()
    rnd = table.round
    assert rnd is not None
    table = replace(table, round=replace(rnd, pile_by=(3,)))
    table = move(table, 1, "decline").table
    refused("may-i-own-discard", engine.ask, table, 1, 1, 3, T0)
    assert engine.ask(table, 1, 1, 2, T0).table.round.offer.asker == 2  # type: ignore[union-attr]


def test_window_of_zero_goes_straight_to_the_stock() -> None:
    table = dealt(may_i_window_ms=0)
    t = move(table, 1, "decline")
    rnd = t.table.round
    assert rnd is not None and rnd.step is Step.STOCK and rnd.offer is None
    # 4.9: nobody can ask, so no offer opens: no offer events, no offer kept.
    assert [e["type"] for e in t.events] == ["discard-declined"]
    assert rnd.offers == 0 and rnd.closed == ()
    assert t.outcome["may_i"] is None and t.outcome["step"] == "stock"
    no = refused("may-i-not-open", engine.ask, t.table, 1, 1, 3, T0)
    assert "0 ms" in no.detail
    refused("may-i-not-open", engine.answer, t.table, 1, 1, 2, True, T0)


def test_take_after_a_lapsed_decline_is_already_declined_not_drawn() -> None:
    table = _declined()
    lapsed = engine.settle_due(table, T0 + 5000).table
    assert lapsed.round is not None and lapsed.round.step is Step.STOCK
    for action in ("take_discard", "decline"):
        no = refused("already-declined", move, lapsed, 1, action, None, T0 + 5000)
        assert no.extra["step"] == "stock"
    drawn = move(lapsed, 1, "draw", None, T0 + 5000).table
    refused("already-drawn", move, drawn, 1, "take_discard", None, T0 + 5000)
    refused("already-drawn", move, drawn, 1, "draw", None, T0 + 5000)


def test_went_out_is_shown_under_every_ending() -> None:
    for ending in ("immediate", "lay-off-round", "play-out"):
        table = dealt(ending=ending)
        table = position(
            table,
            hands={1: ["5D"], 0: ["AS", "9C", "JK"], 2: ["2H"], 3: ["KH", "QH"]},
            melds=[(0, ["5H", "5S", "5C"])],
            step=Step.PLAY,
            on_turn=1,
            down=[1],
        )
        t = move(table, 1, "lay_off", {"card": "5D", "meld": 1})
        assert t.table.round is not None
        shown = views.public_view(t.table, T0)["round"]
        assert shown["went_out"] == 1, ending
        if t.table.round.result is not None:
            assert t.table.round.result.out == 1
        assert views.public_view(engine.finish(t.table, T0).table, T0)["round"]["went_out"] == 1


def test_going_out_scores_20_and_the_rest_minus_their_cards() -> None:
    table = dealt()
    table = position(
        table,
        hands={1: ["5D"], 0: ["AS", "9C", "JK"], 2: ["2H"], 3: ["KH", "QH"]},
        melds=[(0, ["5H", "5S", "5C"])],
        step=Step.PLAY,
        on_turn=1,
        down=[1],
    )
    t = move(table, 1, "lay_off", {"card": "5D", "meld": 1})
    assert [e["type"] for e in t.events] == ["laid-off", "went-out", "round-over"]
    result = t.table.round.result  # type: ignore[union-attr]
    assert result is not None and result.out == 1
    assert result.points == (-45, 20, -5, -20)
    assert t.table.points == (-45, 20, -5, -20)


def test_lay_off_round_lets_each_later_seat_up_to_the_dealer_lay_off() -> None:
    table = dealt(ending="lay-off-round")
    table = position(
        table,
        hands={1: ["5D"], 2: ["5S", "KC"], 3: ["2H"], 0: ["9D", "AS"]},
        melds=[(1, ["5H", "5S", "5C"]), (1, ["TD", "JD", "QD", "KD"])],
        step=Step.PLAY,
        on_turn=1,
        down=[1],
    )
    t = move(table, 1, "discard", "5D")  # every card fits: allowed; seat 1 goes out
    rnd = t.table.round
    assert rnd is not None and rnd.step is Step.FINAL and rnd.on_turn == 2
    assert rnd.final == (2, 3, 0)
    refused("move-invalid", move, t.table, 2, "discard", "KC")
    t = move(t.table, 2, "lay_off", {"card": "5S", "meld": 1})  # not laid down: allowed here
    t2 = move(t.table, 2, "done")
    assert [e["type"] for e in t2.events] == ["lay-off-done", "lay-off-done"]  # 3 is skipped
    rnd = t2.table.round
    assert rnd is not None and rnd.on_turn == 0
    t3 = move(t2.table, 0, "lay_off", {"card": "9D", "meld": 2})
    t4 = move(t3.table, 0, "done")
    result = t4.table.round.result  # type: ignore[union-attr]
    assert result is not None
    assert result.points == (-15, 20, -10, -5)


def test_play_out_goes_round_to_the_seat_that_went_out() -> None:
    table = dealt(ending="play-out")
    table = position(
        table,
        hands={2: ["5D"], 3: ["KC"], 0: ["9D"], 1: ["5S"]},
        melds=[(2, ["5H", "5S", "5C"]), (2, ["TD", "JD", "QD", "KD"])],
        step=Step.PLAY,
        on_turn=2,
        down=[2],
    )
    t = move(table, 2, "discard", "5D")
    rnd = t.table.round
    assert rnd is not None and rnd.final == (0, 1) and rnd.on_turn == 0  # 3 skipped
    t = move(t.table, 0, "lay_off", {"card": "9D", "meld": 2})  # empties: turn ends
    rnd = t.table.round
    assert rnd is not None and rnd.on_turn == 1
    t = move(t.table, 1, "lay_off", {"card": "5S", "meld": 1})
    result = t.table.round.result  # type: ignore[union-attr]
    assert result is not None and result.points == (0, 0, 20, -10)


def test_empty_stock_reshuffles_then_ends_the_round() -> None:
    table = dealt()
    rnd = table.round
    assert rnd is not None
    table = replace(
        table,
        round=replace(rnd, stock=(), pile=("3H", "4H", "5H"), pile_by=(-1, 0, 0), step=Step.STOCK),
    )
    t = move(table, 1, "draw")
    assert [e["type"] for e in t.events] == ["stock-reshuffled", "stock-drawn"]
    rnd = t.table.round
    assert rnd is not None and rnd.pile == ("5H",) and len(rnd.stock) == 1
    dry = replace(table, round=replace(rnd, stock=(), step=Step.STOCK, taken=rnd.taken))
    t = move(dry, 1, "draw")
    assert t.table.round.result.out is None  # type: ignore[union-attr]
    assert t.events[-1]["type"] == "round-over"


def test_five_rounds_make_a_match() -> None:
    table = new_table()
    for number in range(1, 6):
        table = engine.start_round(table, random.Random(number), T0, {}).table
        rnd = table.round
        assert rnd is not None and rnd.dealer == (number - 1) % 4
        table = position(table, hands={1 if number != 4 else 0: []})
        table, _ = engine.end_round(table, rnd.on_turn)
    assert table.match_status is MatchStatus.WON
    refused("match-over", engine.start_round, table, random.Random(1), T0, {})


def test_jokers_in_play() -> None:
    table = dealt(variant="may-i-jokers")
    table = position(
        table,
        hands={1: ["JK", "5H", "5S", "9D", "JD", "QD", "JK", "JK", "4C"]},
        step=Step.PLAY,
        on_turn=1,
    )
    rnd = table.round
    assert rnd is not None
    table = replace(table, round=replace(rnd, number=2))
    t = move(table, 1, "lay_down", [["5H", "5S", "JK"], ["9D", "JK", "JD", "QD"]])
    melds = t.table.round.melds  # type: ignore[union-attr]
    assert melds[1].standing_for() == ["9", "T", "J", "Q"]
    assert melds[0].standing_for() == ["5", "5", "5"]
    v = refused("lay-off-invalid", move, t.table, 1, "lay_off", {"card": "JK", "meld": 2})
    assert "names its end" in v.detail
    t = move(t.table, 1, "lay_off", {"card": "JK", "meld": 2, "end": "low"})
    assert t.table.round.melds[1].cards == ("JK", "9D", "JK", "JD", "QD")  # type: ignore[union-attr]
    assert t.events[0]["end"] == "low"


def test_default_move_and_bot_are_legal() -> None:
    from service.games.may_i.players import bot, default_move

    table = dealt()
    # The default move is basic's (RULES.md 5.3).
    assert default_move(table, 1) == bot(table, 1)
    t = move(table, 1, "take_discard")
    choice = default_move(t.table, 1)
    assert choice["action"] == "discard"
    move(t.table, 1, "discard", choice["argument"])
    choice = bot(t.table, 1, random.Random(1))
    move(t.table, 1, choice["action"], choice["argument"])
    with pytest.raises(ValueError):
        default_move(table, 2)


def test_a_round_nobody_can_go_out_of_ends_with_nobody_out() -> None:
    # Every seat has laid down and no card out of the melds fits one: the
    # discard that shows it ends the round (referee's choice, docs/rules/may-i.md).
    table = dealt(discard="2C")
    rnd = table.round
    assert rnd is not None
    sets = [(s, [r + "S", r + "H", r + "D"]) for s, r in enumerate("AKQJ")]
    loose = ["2S", "3H", "4D", "5C", "6S", "7H", "8D", "9C", "TS"]
    table = position(
        table,
        hands={0: loose[:3], 1: loose[3:6], 2: loose[6:8], 3: loose[8:]},
        melds=sets,
        step=Step.PLAY,
        on_turn=1,
        down=[0, 1, 2, 3],
    )
    rnd = table.round
    assert rnd is not None
    table = replace(table, round=replace(rnd, stock=("2D", "3D"), pile=("9H",), pile_by=(-1,)))
    assert engine.blocked(table.round)  # type: ignore[arg-type]
    t = move(table, 1, "discard", "5C")
    kinds = [e["type"] for e in t.events]
    assert kinds == ["discarded", "round-blocked", "round-over"]
    result = t.table.round.result  # type: ignore[union-attr]
    assert result is not None and result.out is None
    assert result.points == (-15, -10, -10, -10)
    # One card that fits (an ace out of the melds) and it is not blocked.
    ace = replace(table, round=replace(table.round, stock=("2D", "AC")))  # type: ignore[arg-type]
    assert not engine.blocked(ace.round)  # type: ignore[arg-type]
    assert [e["type"] for e in move(ace, 1, "discard", "5C").events] == ["discarded"]
