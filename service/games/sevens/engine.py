"""Pure transitions of a Sevens table (the project's rule book, section 3).

Every transition takes a :class:`~.state.Table` and the move's arguments and
returns a :class:`~service.games.base.Transition`; a refused move raises
:class:`~service.games.errors.RuleViolation` and changes nothing. No clock
and no random source of its own: ``now_ms`` and ``rng`` are passed in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..base import Shuffler, Transition, seat_first_dealer
from ..cards import CardError, parse_card, sort_cards
from ..errors import FieldError, Kind, RuleViolation, register_codes
from ..match import check_dealable, ended_by_host
from .deal import opener, opening_suit, shuffle_and_deal, validate_hands
from .layout import not_playable_reason, place, playable, playable_cards, row_json
from .options import LAST_CARD_CHIPS, Options, resolve_options
from .scoring import Event, abandon_round, end_round, match_json, match_leaders, result_json
from .state import MatchStatus, Move, Round, RoundStatus, Table

register_codes(
    {
        "stale-turn": Kind.CONFLICT,
        "must-open": Kind.INVALID,
        "must-play": Kind.INVALID,
        "voluntary-pass-limit": Kind.INVALID,
        "last-card-invalid": Kind.INVALID,
        "play-invalid": Kind.INVALID,
        "not-playable": Kind.INVALID,
    },
    rules={
        "stale-turn": "sevens#opening-and-turns",
        "must-open": "sevens#opening-and-turns",
        "must-play": "sevens#opening-and-turns",
        "voluntary-pass-limit": "sevens#opening-and-turns",
        "last-card-invalid": "sevens#opening-and-turns",
        "play-invalid": "sevens#the-layout",
        "not-playable": "sevens#the-layout",
    },
)

# --- the table -----------------------------------------------------------


def create_table(
    variant: str,
    overrides: Mapping[str, Any],
    names: Sequence[str],
    first_dealer: int | None,
    rng: Shuffler,
) -> Transition:
    """A new table with no round dealt yet.

    ``names`` are the players in seat order (clockwise); ``first_dealer`` a
    seat, or ``None`` to draw for it. Events ``table-created`` {variant,
    seats} and, after a draw, ``first-dealer-drawn`` {draw}; outcome
    ``{"first_dealer"}``. Raises ``unknown-variant`` / ``options-invalid``
    (see :func:`~.options.resolve_options`; a dealer that is no seat too).
    """
    seats = len(names)
    options = resolve_options(variant, overrides, seats)
    first_dealer, draw, drawn = seat_first_dealer(seats, first_dealer, rng)
    zeros = (0,) * seats
    table = Table(
        variant=variant,
        options=options,
        names=tuple(names),
        first_dealer=first_dealer,
        draw=draw,
        wins=zeros,
        points=zeros,
        chips=zeros,
        played=0,
        last=None,
        round=None,
        match_status=MatchStatus.IN_PROGRESS,
    )
    events: list[Event] = [{"type": "table-created", "variant": variant, "seats": seats}, *drawn]
    return Transition(table, tuple(events), {"first_dealer": first_dealer})


# --- the deal --------------------------------------------------------------


def start_round(table: Table, rng: Shuffler, now_ms: int, deal: Mapping[str, Any]) -> Transition:
    """Deal the next round: ``deal["hands"]`` (by seat) for a submitted deal,
    else a shuffle; ``deal["opening_suit"]`` with ``dealer-choice`` only.

    Event ``round-dealt`` {round, dealer, submitted, opening_suit, opener};
    outcome ``{"round", "dealer"}``. Raises ``match-over``, ``round-in-play``
    or ``deal-invalid`` (every problem, see :func:`~.deal.validate_hands`).
    """
    rnd = table.round
    in_play = rnd.number if rnd is not None and rnd.status is not RoundStatus.OVER else None
    check_dealable(table.match_status, in_play, numbers(table))
    options = table.options
    number = table.played + 1
    dealer = table.next_dealer
    suit = opening_suit(options, deal)
    submitted = deal.get("hands") is not None
    if submitted:
        hands = validate_hands(options, table.seats, dealer, deal["hands"])
    else:
        hands = shuffle_and_deal(options, table.seats, dealer, rng)
    first = opener(hands, dealer, suit)
    rnd = Round(
        number=number,
        dealer=dealer,
        opening_suit=suit,
        opener=first,
        hands=hands,
        layout=(),
        moves=(),
        paid=(0,) * table.seats,
        voluntary=(0,) * table.seats,
        submitted=submitted,
    )
    event: Event = {
        "type": "round-dealt",
        "round": number,
        "dealer": dealer,
        "submitted": submitted,
        "opening_suit": suit,
        "opener": first,
    }
    return Transition(replace(table, round=rnd), (event,), {"round": number, "dealer": dealer})


# --- a turn -----------------------------------------------------------------


def play(
    table: Table,
    round_no: int,
    turn_no: int,
    seat: int,
    card: str,
    last_card: bool,
    now_ms: int,
) -> Transition:
    """The seat on turn plays one card (3.3, 3.4).

    ``last_card`` announces the second-to-last card (``last_card`` tables
    only). Events ``card-played`` {round, turn, seat, card, last_card}, then
    ``last-card-missed`` {round, turn, seat, chips} when the announcement was
    due and missing (2 chips to the pot), then ``round-won`` and a match
    event when the card was the seat's last. Outcome: see :func:`outcome`.

    A repeat of the move that took turn ``turn_no`` (same seat, same card and
    announcement) changes nothing and answers as the first time. Raises
    ``seat-not-found``, ``no-round-in-play``, ``stale-round``,
    ``match-over``, ``round-over``, ``stale-turn``, ``not-your-turn``,
    ``play-invalid`` (no card code, or not in the hand), ``must-open``,
    ``not-playable`` (extra: suit and the rows of that suit),
    ``last-card-invalid``.
    """
    try:
        code = parse_card(card)
    except CardError as exc:
        code = None
        problem = str(exc)
    repeat = "" if code is None else _play_code(code, last_card)
    rnd = _round_for(table, round_no, turn_no, seat, repeat)
    if isinstance(rnd, Transition):
        return rnd
    if code is None:
        raise RuleViolation("play-invalid", problem, [FieldError("/card", problem)])
    hand = rnd.hands[seat]
    if code not in hand:
        detail = f"{code} is not in seat {seat}'s hand."
        raise RuleViolation("play-invalid", detail, [FieldError("/card", detail)])
    _check_opening(rnd, code)
    o = table.options
    if not playable(code, rnd.layout, o.decks, o.turn_the_corner):
        rows = [r for r in rnd.layout if r.suit == code[1]]
        detail = not_playable_reason(code, rnd.layout, o.decks) + "."
        raise RuleViolation(
            "not-playable",
            detail,
            [FieldError("/card", detail)],
            extra={"suit": code[1], "rows": [row_json(r) for r in rows]},
        )
    due = o.last_card and len(hand) == 2
    if last_card and not due:
        why = (
            "this table plays without last_card"
            if not o.last_card
            else f"the card announced is not the second-to-last ({len(hand)} cards in hand)"
        )
        raise RuleViolation(
            "last-card-invalid",
            f"A last-card announcement is refused: {why}.",
            [FieldError("/last_card", why)],
        )
    move: Move = code + ("!" if last_card else "*" if due else "")
    return _apply(table, rnd, seat, move)


def pass_turn(table: Table, round_no: int, turn_no: int, seat: int, now_ms: int) -> Transition:
    """The seat on turn passes and pays ``pass_chips`` into the pot (3.4).

    Allowed when the seat holds no playable card, or with ``voluntary_pass``
    up to ``voluntary_pass_limit`` times a round while it holds one. Event
    ``passed`` {round, turn, seat, chips}: never whether the pass was
    voluntary, which would tell the others whether the seat held a playable
    card. Raises the numbering
    errors of :func:`play`, ``must-open`` (turn 1 with a seven to open),
    ``must-play`` (extra ``playable_count``) and ``voluntary-pass-limit``.
    """
    rnd = _round_for(table, round_no, turn_no, seat, "P|V")
    if isinstance(rnd, Transition):
        return rnd
    o = table.options
    opening = _opening_card(rnd)
    if opening is not None:
        raise _must_open(opening)
    count = len(playable_cards(rnd.hands[seat], rnd.layout, o.decks, o.turn_the_corner))
    if count and not o.voluntary_pass:
        raise RuleViolation(
            "must-play",
            f"Seat {seat} holds {count} playable card{'s' if count != 1 else ''} "
            "and must play one.",
            extra={"playable_count": count},
        )
    if count and rnd.voluntary[seat] >= o.voluntary_pass_limit:
        raise RuleViolation(
            "voluntary-pass-limit",
            f"Seat {seat} has passed {rnd.voluntary[seat]} times this round while it could "
            f"play (the limit is {o.voluntary_pass_limit}); it must play now.",
            extra={"playable_count": count, "limit": o.voluntary_pass_limit},
        )
    return _apply(table, rnd, seat, "V" if count else "P")


def _play_code(card: str, last_card: bool) -> str:
    """The recorded forms a play may have taken (for a repeat): announced, or
    plain or unannounced-and-paid."""
    return card + "!" if last_card else f"{card}|{card}*"


def _opening_card(rnd: Round) -> str | None:
    """The seven turn 1 must play (``None`` after turn 1 or with ``any-seven``)."""
    if rnd.turn != 1 or rnd.opening_suit is None:
        return None
    return "7" + rnd.opening_suit


def _must_open(seven: str) -> RuleViolation:
    return RuleViolation(
        "must-open",
        f"The round opens with {seven}: the first turn must play it.",
        extra={"card": seven},
    )


def _check_opening(rnd: Round, card: str) -> None:
    seven = _opening_card(rnd)
    if seven is not None and card != seven:
        raise _must_open(seven)


def chips_of(options: Options, move: Move) -> int:
    """What a move pays into the pot."""
    if move in ("P", "V"):
        return options.pass_chips
    return LAST_CARD_CHIPS if move.endswith("*") else 0


def _apply(table: Table, rnd: Round, seat: int, move: Move) -> Transition:
    """Record ``move`` (already checked) for the seat on turn and end the
    round when it emptied the hand."""
    o = table.options
    turn = rnd.turn
    events: list[Event] = []
    paid = list(rnd.paid)
    chips = chips_of(o, move)
    paid[seat] += chips
    if move in ("P", "V"):
        voluntary = list(rnd.voluntary)
        voluntary[seat] += move == "V"
        rnd = replace(rnd, voluntary=tuple(voluntary))
        events.append(
            {
                "type": "passed",
                "round": rnd.number,
                "turn": turn,
                "seat": seat,
                "chips": chips,
            }
        )
    else:
        card = move[:2]
        hands = list(rnd.hands)
        held = list(hands[seat])
        held.remove(card)  # one copy: with two decks the other stays
        hands[seat] = tuple(held)
        layout = place(card, rnd.layout, o.decks, o.turn_the_corner)
        rnd = replace(rnd, hands=tuple(hands), layout=layout)
        events.append(
            {
                "type": "card-played",
                "round": rnd.number,
                "turn": turn,
                "seat": seat,
                "card": card,
                "last_card": move.endswith("!"),
            }
        )
        if move.endswith("*"):
            events.append(
                {
                    "type": "last-card-missed",
                    "round": rnd.number,
                    "turn": turn,
                    "seat": seat,
                    "chips": chips,
                }
            )
    rnd = replace(rnd, moves=rnd.moves + (move,), paid=tuple(paid))
    table = replace(table, round=rnd)
    if not rnd.hands[seat]:
        table, more = end_round(table, seat)
        events.extend(more)
    return Transition(table, tuple(events), outcome(table, turn))


def outcome(table: Table, turn: int) -> dict[str, Any]:
    """The answer to the move that took turn ``turn`` of the current round:
    ``{"round", "turn", "seat", "action", "card", "last_card", "chips_paid",
    "next_seat", "next_turn", "pot", "round_status", "result", "match",
    "hand"}``; ``pot`` is the pot and ``hand`` the seat's hand just after that
    move, ``next_*`` ``None`` when the move ended the round, ``match`` the
    match as that move left it. Computed from the round's moves, so a repeat
    of an earlier move answers exactly as it did, whatever came after."""
    rnd = table.round
    assert rnd is not None
    move = rnd.moves[turn - 1]
    seat = rnd.seat_of(turn)
    last = turn == len(rnd.moves) and rnd.status is RoundStatus.OVER and not _abandoned(rnd)
    pot = sum(chips_of(table.options, m) for m in rnd.moves[:turn])
    # The seat's hand then: its hand now with the cards it played since.
    later = [
        m[:2]
        for t, m in enumerate(rnd.moves[turn:], start=turn + 1)
        if rnd.seat_of(t) == seat and m not in ("P", "V")
    ]
    return {
        "round": rnd.number,
        "turn": turn,
        "seat": seat,
        "action": "pass" if move in ("P", "V") else "play",
        "card": None if move in ("P", "V") else move[:2],
        "last_card": move.endswith("!"),
        "chips_paid": chips_of(table.options, move),
        "next_seat": None if last else rnd.seat_of(turn + 1),
        "next_turn": None if last else turn + 1,
        "pot": pot,
        "round_status": "over" if last else "playing",
        "result": result_json(rnd.result, table.options) if last else None,
        # Only the move that ended the round can have ended the match.
        "match": match_json(table)
        if last
        else {"status": MatchStatus.IN_PROGRESS.value, "winners": []},
        "hand": list(sort_cards([*rnd.hands[seat], *later])),
    }


def _abandoned(rnd: Round) -> bool:
    return rnd.result is not None and rnd.result.abandoned


# --- the end -----------------------------------------------------------------


def finish(table: Table, now_ms: int) -> Transition:
    """The host ends the match now.

    A round in play is abandoned (``round-abandoned`` {round}): not scored,
    and every chip paid in it goes back to its payer (the referee's choice).
    An ``open`` match is then ``finished`` with the leaders as winners; any
    other is ``abandoned`` with no winner. Raises ``match-over`` when the
    match has already ended.
    """
    if table.match_status is not MatchStatus.IN_PROGRESS:
        raise RuleViolation("match-over", "The match is already over.", extra=numbers(table))
    events: list[Event] = []
    rnd = table.round
    if rnd is not None and rnd.status is RoundStatus.PLAYING:
        table = replace(table, round=abandon_round(table, rnd))
        events.append({"type": "round-abandoned", "round": rnd.number})
    open_match = table.options.match.kind == "open"
    table, status, _ = ended_by_host(table, open_match, match_leaders(table))
    events.append({"type": f"match-{status.value}", **match_json(table)})
    return Transition(table, tuple(events), match_json(table))


# --- numbers ------------------------------------------------------------------


def numbers(table: Table) -> dict[str, Any]:
    """The current round and turn and the seat on turn, for 409 answers."""
    rnd = table.round
    on_turn = rnd.on_turn if rnd is not None else None
    return {
        "current_round": rnd.number if rnd else None,
        "current_turn": rnd.turn if rnd and on_turn is not None else None,
        "on_turn": on_turn,
        "round_status": rnd.status.value if rnd else None,
        "waiting_for": [] if on_turn is None else [on_turn],
    }


def _round_for(
    table: Table, round_no: int, turn_no: int, seat: int, repeat: str
) -> Round | Transition:
    """The current round, if the move's numbers name its current turn and
    ``seat`` is on turn; for a repeat of an earlier move of this round
    (``repeat``: the move's recorded forms, ``|``-separated), the unchanged
    table with the first answer."""
    if not 0 <= seat < table.seats:
        raise RuleViolation("seat-not-found", f"There is no seat {seat} at this table.")
    rnd = table.round
    if rnd is None:
        raise RuleViolation(
            "no-round-in-play", "No round has been dealt yet.", extra=numbers(table)
        )
    if round_no != rnd.number:
        if round_no > rnd.number and rnd.status is RoundStatus.OVER:
            why = f"Round {round_no} has not been dealt: round {rnd.number} is over" + (
                "; the host deals the next round."
                if table.match_status is MatchStatus.IN_PROGRESS
                else " and so is the match."
            )
        elif round_no > rnd.number:
            why = f"Round {round_no} has not been dealt; round {rnd.number} is being played."
        else:
            why = f"Round {round_no} is over; the current round is {rnd.number}."
        raise RuleViolation("stale-round", why, extra=numbers(table))
    if (
        1 <= turn_no <= len(rnd.moves)
        and rnd.seat_of(turn_no) == seat
        and rnd.moves[turn_no - 1] in repeat.split("|")
    ):
        return Transition(table, (), outcome(table, turn_no))
    if rnd.status is RoundStatus.OVER:
        if table.match_status is not MatchStatus.IN_PROGRESS:
            raise RuleViolation("match-over", "The match is over.", extra=numbers(table))
        raise RuleViolation("round-over", f"Round {rnd.number} is over.", extra=numbers(table))
    if turn_no != rnd.turn:
        raise RuleViolation(
            "stale-turn",
            f"Turn {turn_no} is not the current turn; round {rnd.number} is at turn "
            f"{rnd.turn}, seat {rnd.on_turn} to move.",
            extra=numbers(table),
        )
    if seat != rnd.on_turn:
        raise RuleViolation(
            "not-your-turn",
            f"It is seat {rnd.on_turn}'s turn, not seat {seat}'s.",
            extra=numbers(table),
        )
    return rnd
