"""Pure transitions of a My Ship Sails table (RULES.md section 2).

Every transition takes a :class:`~.state.Table` and the move's arguments and
returns a :class:`Transition`: the new table, the public events it produced and
an outcome for the caller. A refused move raises
:class:`~.errors.RuleViolation` and changes nothing. Nothing here reads a clock
or a random source of its own: the caller passes ``now_ms`` (milliseconds since
the epoch) and ``rng`` (an object with ``shuffle``; the service passes
:class:`random.SystemRandom`, tests a seeded :class:`random.Random`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from ..base import Choice, Shuffler, Step, Transition, seat_first_dealer
from ..cards import CardError, describe_count, parse_card, sort_cards, suit_counts
from ..errors import FieldError, RuleViolation
from ..match import check_dealable, ended_by_host
from .deal import shuffle_and_deal, validate_deal
from .options import Options, deck_for, resolve_options
from .passing import (
    archived,
    open_exchange,
    parse_pass,
    resolve_all,
    round_direction,
    swaps_before_showdown,
    unarchived,
)
from .scoring import (
    Event,
    call_showdown,
    cleared,
    end_round,
    match_json,
    match_leaders,
    result_json,
    settle_automatic,
)
from .settlement import winning_suits
from .state import (
    Cards,
    Claim,
    Exchange,
    MatchStatus,
    Round,
    RoundResult,
    RoundStatus,
    Table,
)

R = TypeVar("R")

# --- the table -----------------------------------------------------------


def create_table(
    variant: str,
    overrides: dict[str, Any],
    names: Sequence[str],
    first_dealer: int | None,
    rng: Shuffler,
) -> Transition:
    """A new table with no round dealt yet.

    ``names`` are the players in seat order (clockwise). ``first_dealer`` is a
    seat, or ``None`` to draw for it (RULES.md 1: one card each from a shuffled
    52-card deck, lowest rank deals, ties draw again among themselves).
    Raises ``unknown-variant`` or ``options-invalid`` (see
    :func:`~.options.resolve_options`) and ``options-invalid`` for a dealer
    that is not a seat.
    """
    seats = len(names)
    options = resolve_options(variant, overrides, seats)
    first_dealer, draw, drawn = seat_first_dealer(seats, first_dealer, rng)
    table = Table(
        variant=variant,
        options=options,
        names=tuple(names),
        first_dealer=first_dealer,
        draw=draw,
        wins=(0,) * seats,
        played=0,
        last=None,
        round=None,
        match_status=MatchStatus.IN_PROGRESS,
        chips=(0,) * seats,
    )
    events: list[Event] = [{"type": "table-created", "variant": variant, "seats": seats}, *drawn]
    return Transition(table, tuple(events), {"first_dealer": first_dealer})


# --- the deal --------------------------------------------------------------


def start_round(
    table: Table,
    rng: Shuffler,
    now_ms: int,
    hands: Sequence[Sequence[str]] | None = None,
) -> Transition:
    """Deal the next round (RULES.md 2.4): shuffle and deal when ``hands`` is
    ``None``, else check the submitted deal (a list of hands by seat).

    Raises ``match-over``, ``round-in-play`` (the current round is not over) or
    ``deal-invalid`` with every problem of the submitted deal.
    """
    return on_time(table, now_ms, lambda t: _start_round(t, rng, hands))


def _start_round(table: Table, rng: Shuffler, hands: Sequence[Sequence[str]] | None) -> Transition:
    rnd = table.round
    in_play = rnd.number if rnd is not None and rnd.status is not RoundStatus.OVER else None
    check_dealable(table.match_status, in_play, _numbers(table))
    options = table.options
    number = table.played + 1
    dealer = table.next_dealer
    deck = deck_for(options, table.seats)
    if hands is None:
        dealt, set_aside = shuffle_and_deal(deck, table.seats, dealer, options.hand_size, rng)
    else:
        dealt = validate_deal(options, table.seats, hands)
        in_hands = {c for h in dealt for c in h}
        set_aside = sort_cards(c for c in deck if c not in in_hands)
    direction = round_direction(options, number)
    rnd = Round(
        number=number,
        dealer=dealer,
        direction=direction,
        hands=dealt,
        set_aside=set_aside,
        exchange=open_exchange(options, 1, table.seats, dealer),
        status=RoundStatus.PASSING,
        given=(None,) * table.seats,
        received=(None,) * table.seats,
    )
    events: list[Event] = [
        {
            "type": "round-dealt",
            "round": number,
            "dealer": dealer,
            "direction": direction,
            "submitted": hands is not None,
        }
    ]
    table = replace(table, round=rnd)
    if options.declaration == "automatic":
        table, more = settle_automatic(table)
        events.extend(more)
    # The history holds the current round's exchanges: a new round starts it anew.
    return Transition(table, tuple(events), {"round": number, "dealer": dealer}, archive_reset=True)


# --- passing -------------------------------------------------------------------


Earlier = Callable[[int], str | bytes | None]
"""Reads the table's history: the text kept for this round's resolved
exchange at a position (-1 the newest, -2 the one before…; ``None``: not
kept), see :func:`.passing.archived`."""


def choose_pass(
    table: Table,
    round_no: int,
    exchange_no: int,
    seat: int,
    cards: Sequence[str],
    now_ms: int,
    earlier: Earlier | None = None,
) -> Transition:
    """A seat chooses, or replaces, its pass in the current exchange (RULES.md 2.5).

    Only the exchange's choosers may pass: every seat under ``simultaneous``,
    the seat on turn under ``chain``, the two seats of the swap under
    ``swap``. When the last chooser has chosen, the exchange resolves at once;
    under ``automatic`` any winning hand then ends the round (2.6); a ``swap``
    round whose circuits are done goes to Foster's showdown (2.9); and a round
    that reaches ``max_exchanges`` without a winner is void (2.8). Repeating a pass
    that is already chosen, even one of an exchange that has since resolved,
    changes nothing and answers with that exchange as it stands now
    (``resolved`` true once it has resolved). The state keeps the last
    resolved exchange's passes; a repeat of an older one is recognised only
    through ``earlier``, which reads the table's history (else it is a
    ``stale-exchange``).

    Raises ``seat-not-found``, ``no-round-in-play``, ``stale-round``,
    ``round-over`` (passing has stopped, also once the match is over),
    ``stale-exchange`` (with the current numbers), ``not-your-turn`` (with
    ``waiting_for``), or ``pass-invalid``.
    """
    return on_time(
        table, now_ms, lambda t: _choose_pass(t, round_no, exchange_no, seat, cards, earlier)
    )


def _choose_pass(
    table: Table,
    round_no: int,
    exchange_no: int,
    seat: int,
    cards: Sequence[str],
    earlier: Earlier | None,
) -> Transition:
    rnd = _round_for(table, round_no, seat)
    exchange = rnd.exchange
    if rnd.status is not RoundStatus.PASSING or exchange_no != exchange.number:
        # A retry of a pass that resolved its exchange (maybe ending the round
        # or the match) answers as the first time did.
        repeated = _repeated_pass(table.options, rnd, exchange_no, seat, cards, earlier)
        if repeated is not None:
            return Transition(table, (), _pass_outcome(rnd, exchange_no, seat, repeated, True))
    if rnd.status is not RoundStatus.PASSING:
        raise RuleViolation(
            "round-over", f"Round {rnd.number} is no longer passing.", extra=_numbers(table)
        )
    if exchange_no != exchange.number:
        raise RuleViolation(
            "stale-exchange",
            f"Exchange {exchange_no} is not the current one; round {rnd.number} is at "
            f"exchange {exchange.number}.",
            extra=_numbers(table),
        )
    if seat not in exchange.choosers:
        raise RuleViolation(
            "not-your-turn",
            f"Seat {seat} does not pass in exchange {exchange_no}; " + _whose_turn(exchange) + ".",
            extra=_numbers(table),
        )
    chosen = parse_pass(table.options, rnd.hands[seat], cards)
    if exchange.choices[seat] == chosen:
        return Transition(table, (), _pass_outcome(rnd, exchange_no, seat, chosen, False))
    events: list[Event] = []
    if exchange.choices[seat] is None:
        events.append(
            {"type": "pass-chosen", "round": rnd.number, "exchange": exchange_no, "seat": seat}
        )
    # Only this seat's choice: the store may commit it beside other seats'
    # choices without taking the table's version (RULES.md 2.5).
    choice = Choice(step_key(rnd), seat, "".join(chosen), len(exchange.choosers), tuple(events))
    choices = list(exchange.choices)
    choices[seat] = chosen
    exchange = _exchange_with_choices(exchange, tuple(choices))
    if exchange.waiting_for:
        rnd = _round_with_exchange(rnd, exchange)
        table = _table_with_round(table, rnd)
        return Transition(
            table, tuple(events), _pass_outcome(rnd, exchange_no, seat, chosen, False), choice
        )
    table, more, archive = _resolve_exchange(table, exchange)
    events.extend(more)
    assert table.round is not None
    outcome = _pass_outcome(table.round, exchange_no, seat, chosen, True)
    return Transition(table, tuple(events), outcome, choice, archive)


def step_key(rnd: Round) -> str:
    """The key of ``rnd``'s current exchange as a simultaneous step:
    ``"r3x7"`` for round 3, exchange 7 (unique within a table's life)."""
    return f"r{rnd.number}x{rnd.exchange.number}"


def step_of(table: Table) -> Step | None:
    """The exchange the table waits on as a simultaneous step
    (:class:`~..base.Step`): its key, its choosers and the choices made in
    the state (cards as one string, ``"AS7H"``); ``None`` when the round is
    not passing (no round, a claim window, over)."""
    rnd = table.round
    if rnd is None or rnd.status is not RoundStatus.PASSING:
        return None
    exchange = rnd.exchange
    choices = {s: "".join(c) for s, c in enumerate(exchange.choices) if c is not None}
    return Step(step_key(rnd), exchange.choosers, choices)


def fold_choices(table: Table, choices: Mapping[int, str | bytes]) -> Table:
    """The table with the pending choices of its current exchange put in
    (``{seat: cards as one string}``, as :func:`step_of` gives them; checked
    when they were made). A table whose exchange is then complete is
    resolved by :func:`settle_due`. The table itself when there is nothing to
    fold or the round is not passing."""
    rnd = table.round
    if not choices or rnd is None or rnd.status is not RoundStatus.PASSING:
        return table
    merged = list(rnd.exchange.choices)
    for seat, text in choices.items():
        raw = text.decode() if isinstance(text, bytes) else text
        merged[int(seat)] = tuple(raw[i : i + 2] for i in range(0, len(raw), 2))
    exchange = _exchange_with_choices(rnd.exchange, tuple(merged))
    return _table_with_round(table, _round_with_exchange(rnd, exchange))


def _repeated_pass(
    options: Options,
    rnd: Round,
    exchange_no: int,
    seat: int,
    cards: Sequence[str],
    earlier: Earlier | None,
) -> Cards | None:
    """The recorded pass if this is a repeat of a pass of a resolved exchange."""
    if not 1 <= exchange_no <= rnd.exchanges_resolved:
        return None
    try:
        parsed = sort_cards(parse_card(c) for c in cards)
    except CardError:
        return None
    if len(parsed) != options.pass_count:
        return None
    choices = _passes_of(rnd, exchange_no, earlier)
    recorded = None if choices is None or seat >= len(choices) else choices[seat]
    return recorded if recorded == parsed else None


def _passes_of(
    rnd: Round, exchange_no: int, earlier: Earlier | None
) -> tuple[Cards | None, ...] | None:
    """The choices of resolved exchange ``exchange_no`` of ``rnd``: the last
    one's from the state, an older one's from a round stored before the
    history, or from the history through ``earlier``; ``None`` if not known."""
    if exchange_no == rnd.exchanges_resolved and rnd.last_passes:
        return rnd.last_passes
    if exchange_no <= len(rnd.legacy_passes):
        return rnd.legacy_passes[exchange_no - 1]
    if earlier is None:
        return None
    # Counted from the newest: the history keeps only the round's newest
    # exchanges (the store's HISTORY_KEPT); an older one is not known.
    text = earlier(exchange_no - rnd.exchanges_resolved - 1)
    if text is None:
        return None
    round_no, number, choices = unarchived(text)
    return choices if (round_no, number) == (rnd.number, exchange_no) else None


def _whose_turn(exchange: Exchange) -> str:
    """Who is awaited in ``exchange``, in words."""
    if exchange.resolution == "chain":
        return f"it is seat {exchange.choosers[0]}'s turn"
    if exchange.resolution == "swap":
        a, b = exchange.choosers
        return f"it is the swap between seats {a} and {b}"
    return "every seat passes"


def _pass_outcome(
    rnd: Round, exchange_no: int, seat: int, cards: Cards, resolved: bool
) -> dict[str, Any]:
    return {
        "round": rnd.number,
        "exchange": exchange_no,
        "seat": seat,
        "cards": list(cards),
        "resolved": resolved,
        "waiting_for": [] if resolved else list(rnd.exchange.waiting_for),
        "round_status": rnd.status.value,
    }


def _resolve_exchange(table: Table, exchange: Exchange) -> tuple[Table, list[Event], tuple[str]]:
    """Resolve ``exchange`` (every chooser has chosen): the table after it,
    its events, and the history text of its passes (:func:`.passing.archived`)."""
    rnd = table.round
    assert rnd is not None
    options = table.options
    seats = len(rnd.hands)
    number = exchange.number
    hands, given, received = resolve_all(
        exchange,
        rnd.hands,
        rnd.direction,
        rnd.given or (None,) * seats,
        rnd.received or (None,) * seats,
    )
    archive = (archived(rnd.number, number, exchange.choices),)
    rnd = _round_resolved(
        rnd,
        hands,
        rnd.exchanges_resolved + 1,
        exchange.choices,
        given,
        received,
        open_exchange(options, number + 1, seats, rnd.dealer),
    )
    table = _table_with_round(table, rnd)
    events: list[Event] = [{"type": "exchange-resolved", "round": rnd.number, "exchange": number}]
    if options.declaration == "automatic":
        table, more = settle_automatic(table)
        events.extend(more)
        rnd = table.round
    if rnd is None or rnd.status is not RoundStatus.PASSING:
        return table, events, archive
    swaps = swaps_before_showdown(options, seats)
    max_exchanges = options.max_exchanges
    if swaps is not None and number >= swaps:
        table, more = call_showdown(table)
        events.extend(more)
    elif max_exchanges is not None and number >= max_exchanges:
        table, more = end_round(table, (), "void")
        events.extend(more)
    return table, events, archive


def _evolver(kind: type[R], *changed: str) -> Callable[..., R]:
    """A function ``(record, *values of changed) -> copy of record`` for the
    frozen, slotted ``kind``: :func:`.state.evolve` for a fixed set of
    fields, unrolled once from the class's slots (so it follows any field
    the state gains). Each field is set through its slot's descriptor, as
    ``evolve`` does; the loop and the keyword handling are what it saves on
    the hot path of every exchange."""
    slots: tuple[str, ...] = kind.__slots__  # type: ignore[attr-defined]
    unknown = set(changed) - set(slots)
    if unknown:
        raise TypeError(f"{kind.__name__} has no field {sorted(unknown)[0]!r}")
    scope: dict[str, Any] = {"_new": object.__new__, "_kind": kind}
    lines = [f"def evolved(_record, {', '.join(changed)}):", "    _made = _new(_kind)"]
    for i, name in enumerate(slots):
        scope[f"_set{i}"] = getattr(kind, name).__set__
        value = name if name in changed else f"_record.{name}"
        lines.append(f"    _set{i}(_made, {value})")
    lines.append("    return _made")
    exec("\n".join(lines), scope)  # noqa: S102 - code made from the class's own slot names
    evolved: Callable[..., R] = scope["evolved"]
    return evolved


_round_resolved = _evolver(
    Round, "hands", "exchanges_resolved", "last_passes", "given", "received", "exchange"
)
_table_with_round = _evolver(Table, "round")
_round_with_exchange = _evolver(Round, "exchange")
_exchange_with_choices = _evolver(Exchange, "choices")


# --- declaring --------------------------------------------------------------


def check_hand(options: Options, hand: Sequence[str]) -> tuple[bool, str]:
    """Whether ``hand`` wins under ``options`` (RULES.md 2.6), with a sentence
    saying why or why not (``"The hand holds 6 hearts; 7 cards of one suit
    are needed."``). ``hand`` must hold canonical codes."""
    suits = winning_suits(hand, options.win_count)
    if suits:
        return True, f"The hand holds {describe_count(suit_counts(hand)[suits[0]], suits[0])}."
    counts = suit_counts(hand)
    best = max(counts, key=lambda s: counts[s])
    return False, (
        f"The hand holds {describe_count(counts[best], best)}; "
        f"{options.win_count} cards of one suit are needed."
    )


def claim(table: Table, round_no: int, seat: int, now_ms: int) -> Transition:
    """A seat declares a win (RULES.md 2.6, 2.7).

    A valid claim ends the passing at once; chosen but unresolved passes are
    cancelled. With ``claim_window_ms`` 0 the claimant wins outright; otherwise
    the round waits until the window closes for other winning hands to claim.
    Under ``swap`` passing a valid claim calls Foster's showdown instead
    (2.9): every hand is shown and the best winning suit by sum wins, which
    may be another seat's.
    An invalid claim raises ``claim-not-winning`` with the reason, changes
    nothing and carries a ``claim-rejected`` event to record (its public form
    names no card). A seat that has already declared validly in this round
    gets the same answer again and changes nothing (a safe retry). Also
    raises ``no-round-in-play``, ``seat-not-found``, ``stale-round``,
    ``round-over``, ``claim-window-closed`` and ``declaration-automatic``.
    """
    return on_time(table, now_ms, lambda t: _claim(t, round_no, seat, now_ms))


def _claim(table: Table, round_no: int, seat: int, now_ms: int) -> Transition:
    rnd = _round_for(table, round_no, seat)
    if table.options.declaration == "automatic":
        raise RuleViolation(
            "declaration-automatic",
            "This table declares automatically: the referee ends the round as soon as a hand wins.",
            extra=_numbers(table),
        )
    if any(c.seat == seat for c in rnd.claims):
        # A repeated declaration (a retry after a lost answer) changes nothing
        # and answers with the round as it stands.
        return Transition(table, (), _claim_outcome(table, seat))
    if rnd.status is RoundStatus.OVER:
        if rnd.window_closes_at_ms is not None:
            raise RuleViolation(
                "claim-window-closed",
                f"The claim window of round {rnd.number} closed at {rnd.window_closes_at_ms}.",
                extra=_numbers(table),
            )
        raise RuleViolation("round-over", f"Round {rnd.number} is over.", extra=_numbers(table))
    hand = rnd.hands[seat]
    wins, reason = check_hand(table.options, hand)
    if not wins:
        raise RuleViolation(
            "claim-not-winning",
            reason,
            [FieldError("", reason)],
            record=({"type": "claim-rejected", "round": rnd.number, "seat": seat},),
        )
    claim_ = Claim(seat=seat, at_ms=now_ms, hand=hand)
    events: list[Event] = [
        {"type": "claim-accepted", "round": rnd.number, "seat": seat, "hand": list(hand)}
    ]
    window = table.options.claim_window_ms
    if table.options.passing == "swap":
        rnd = replace(rnd, exchange=cleared(rnd.exchange), claims=(claim_,))
        table, more = call_showdown(replace(table, round=rnd))
        events.extend(more)
    elif rnd.status is RoundStatus.PASSING:
        rnd = replace(rnd, exchange=cleared(rnd.exchange), claims=(claim_,))
        if window > 0:
            rnd = replace(rnd, status=RoundStatus.CLAIM_WINDOW, window_closes_at_ms=now_ms + window)
            table = replace(table, round=rnd)
        else:
            table = replace(table, round=rnd)
            table, more = end_round(table, (claim_,), None)
            events.extend(more)
    else:  # the window is open: a simultaneous claim
        table = replace(table, round=replace(rnd, claims=rnd.claims + (claim_,)))
    return Transition(table, tuple(events), _claim_outcome(table, seat))


def _claim_outcome(table: Table, seat: int) -> dict[str, Any]:
    rnd = table.round
    assert rnd is not None
    return {
        "round": rnd.number,
        "seat": seat,
        "accepted": True,
        "round_status": rnd.status.value,
        "window_closes_at_ms": rnd.window_closes_at_ms,
        "result": result_json(rnd.result),
        "match": match_json(table),
    }


def on_time(table: Table, now_ms: int, move: Callable[[Table], Transition]) -> Transition:
    """Run ``move`` on the table as it stands at ``now_ms``: a claim window
    whose time has come is closed first (:func:`settle_due`), and that
    settlement is part of the result. A refused move keeps nothing of it:
    the service's store settles a table as it reads it (``Game.due``) and
    stores the settlement with the next accepted move."""
    settled = settle_due(table, now_ms)
    done = move(settled.table)
    if not settled.events:
        return done
    # A move that empties the history (a deal) empties it of what the
    # settlement archived too: that was the ended round's.
    archive = done.archive if done.archive_reset else settled.archive + done.archive
    return Transition(
        done.table,
        settled.events + done.events,
        done.outcome,
        done.choice,
        archive,
        settled.archive_reset or done.archive_reset,
    )


def settle_due(table: Table, now_ms: int) -> Transition:
    """Resolve an exchange whose every chooser has chosen (a table with its
    pending choices folded in, :func:`fold_choices`; RULES.md 2.5), and close
    a claim window whose time has come (RULES.md 2.7); otherwise return the
    table unchanged with no events. Every transition runs it first (through
    :func:`on_time`), and the views apply it to what they show; it is the
    game's ``due``. The events of a closed window carry ``at_ms``, the first
    instant after it (the same whenever they are computed); those of a
    resolved exchange do not (the store stamps them with its last choice's)."""
    rnd = table.round
    if rnd is not None and rnd.status is RoundStatus.PASSING and not rnd.exchange.waiting_for:
        resolved, events, archive = _resolve_exchange(table, rnd.exchange)
        return Transition(resolved, tuple(events), archive=archive)
    if (
        rnd is None
        or rnd.status is not RoundStatus.CLAIM_WINDOW
        or rnd.window_closes_at_ms is None
        or now_ms <= rnd.window_closes_at_ms  # "this long after" includes the last instant
    ):
        return Transition(table)
    closed_at = rnd.window_closes_at_ms + 1
    table, events = end_round(table, rnd.claims, None)
    return Transition(table, tuple({"at_ms": closed_at, **e} for e in events))


def due_at(table: Table) -> int | None:
    """The first instant after an open claim window (RULES.md 2.7), when
    :func:`settle_due` closes it, the game's ``due_at``; ``None`` without one."""
    rnd = table.round
    if rnd is None or rnd.status is not RoundStatus.CLAIM_WINDOW:
        return None
    return None if rnd.window_closes_at_ms is None else rnd.window_closes_at_ms + 1


def finish(table: Table, now_ms: int) -> Transition:
    """The host ends the match now (RULES.md 2.8 ``open``; or abandons any match).

    A round in its claim window is settled now among the valid claims made so
    far (it may end the match by its own rule); a round still passing is
    cancelled and not scored. An ``open`` match is then ``finished`` with the
    leaders as winners; any other is ``abandoned`` with no winner. Raises
    ``match-over`` when the match has already ended.
    """
    return on_time(table, now_ms, _finish)


def _finish(table: Table) -> Transition:
    if table.match_status is not MatchStatus.IN_PROGRESS:
        raise RuleViolation("match-over", "The match is already over.", extra=_numbers(table))
    events: list[Event] = []
    rnd = table.round
    if rnd is not None and rnd.status is RoundStatus.CLAIM_WINDOW:
        table, events = end_round(table, rnd.claims, None)
        if table.match_status is not MatchStatus.IN_PROGRESS:
            return Transition(table, tuple(events), match_json(table))
        rnd = table.round
    if rnd is not None and rnd.status is not RoundStatus.OVER:
        no_chips = (0,) * table.seats if table.options.chips else ()
        cancelled = RoundResult(
            rnd.number,
            rnd.dealer,
            rnd.exchanges_resolved,
            (),
            (),
            "abandoned",
            no_chips,
            sort_cards(rnd.set_aside),
        )
        rnd = replace(
            rnd,
            status=RoundStatus.OVER,
            exchange=cleared(rnd.exchange),
            result=cancelled,
        )
        table = replace(table, round=rnd)
        events.append({"type": "round-abandoned", "round": rnd.number})
    open_match = table.options.match.kind == "open"
    table, status, _ = ended_by_host(table, open_match, match_leaders(table))
    events.append({"type": f"match-{status.value}", **match_json(table)})
    return Transition(table, tuple(events), match_json(table))


# --- helpers ---------------------------------------------------------------------


def _numbers(table: Table) -> dict[str, Any]:
    """The current round and exchange numbers and the seats awaited, for 409 answers."""
    rnd = table.round
    passing = rnd is not None and rnd.status is RoundStatus.PASSING
    return {
        "current_round": rnd.number if rnd else None,
        "current_exchange": rnd.exchange.number if rnd and passing else None,
        "round_status": rnd.status.value if rnd else None,
        "waiting_for": list(rnd.exchange.waiting_for) if rnd and passing else [],
    }


def numbers(table: Table) -> dict[str, Any]:
    """The current round and exchange and who is waited for, for 409 answers."""
    return _numbers(table)


def _round_for(table: Table, round_no: int, seat: int) -> Round:
    """The current round, if ``round_no`` names it and ``seat`` sits at the table."""
    if not 0 <= seat < table.seats:
        raise RuleViolation("seat-not-found", f"There is no seat {seat} at this table.")
    # Once the match is over its last round is over too: moves get round-over.
    rnd = table.round
    if rnd is None:
        raise RuleViolation(
            "no-round-in-play", "No round has been dealt yet.", extra=_numbers(table)
        )
    if round_no != rnd.number:
        raise RuleViolation(
            "stale-round",
            f"Round {round_no} is not the current round; the current round is {rnd.number}.",
            extra=_numbers(table),
        )
    return rnd
