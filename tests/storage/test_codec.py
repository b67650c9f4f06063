"""The codec: exact round trips of states and events, the compact event
layout, and the layouts written before (fmt 1) still read."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings

from service.games.codec import decode, decode_event, encode, encode_event
from service.games.errors import RuleViolation, StoredFormatNewer
from service.games.ship import engine
from service.games.ship.codec import EVENT_LAYOUTS
from service.games.ship.options import PRESETS
from service.games.ship.state import MatchStatus, RoundStatus

from ..ship.test_invariants import GAMES, play_randomly
from . import layout_v1

EPOCH_MS = 1_796_010_142_212


def random_game_events(seed: int, preset: str) -> Iterator[dict[str, Any]]:
    """Every event of a few random rounds of ``preset`` as the store gets them
    (with ``at_ms``): drawn or chosen first dealer, shuffled or submitted
    deals, passes, claims (refused ones are logged), voids, claim windows
    closing, matches won, finished early or abandoned."""
    rng = random.Random(seed)
    preset_options = PRESETS[preset]
    seats = rng.randint(preset_options.min_seats, preset_options.max_seats)
    overrides: dict[str, Any] = {
        "declaration": rng.choice(["manual", "automatic"]),
        "max_exchanges": rng.choice([None, 2, 6]),
    }
    if preset_options.options.match.kind != "open" and rng.random() < 0.5:
        overrides["match"] = {"deals": 2}
    names = [f"P{i}" for i in range(seats)]
    now = EPOCH_MS

    def stamped(events: Any) -> Iterator[dict[str, Any]]:
        return ({"at_ms": now, **e} for e in events)

    step = engine.create_table(preset, overrides, names, rng.choice([None, 0]), rng)
    yield from stamped(step.events)
    table = step.table
    for _round in range(3):
        if table.match_status is not MatchStatus.IN_PROGRESS:
            break
        if rng.random() < 0.3:  # a submitted deal
            shuffled = engine.start_round(table, rng, now).table.round
            assert shuffled is not None
            step = engine.start_round(table, rng, now, [list(h) for h in shuffled.hands])
        else:
            step = engine.start_round(table, rng, now)
        yield from stamped(step.events)
        table = step.table
        for _step in range(200):
            rnd = table.round
            assert rnd is not None
            if rnd.status is not RoundStatus.PASSING or rng.random() < 0.01:
                break
            now += rng.randint(0, 400)
            awaited = rnd.exchange.waiting_for
            seat = rng.choice(awaited) if awaited else rng.randrange(seats)
            try:
                if rng.random() < 0.1:
                    step = engine.claim(table, rnd.number, seat, now)
                else:
                    cards = rng.sample(rnd.hands[seat], table.options.pass_count)
                    step = engine.choose_pass(
                        table, rnd.number, rnd.exchange.number, seat, cards, now
                    )
            except RuleViolation as refused:
                yield from stamped(refused.record)
                continue
            yield from stamped(step.events)
            table = step.table
        now += 60_001  # a claim window closes by itself
        step = engine.settle_due(table, now)
        yield from stamped(step.events)
        table = step.table
        if table.round is not None and table.round.status is RoundStatus.PASSING:
            break  # finished below, mid-round
    if table.match_status is MatchStatus.IN_PROGRESS:
        yield from stamped(engine.finish(table, now).events)


def test_every_event_type_round_trips_exactly_in_the_compact_layout() -> None:
    seen: set[str] = set()
    for preset in PRESETS:
        for seed in range(12):
            for event in random_game_events(seed, preset):
                text = encode_event(event)
                assert text.startswith("["), text  # the compact layout, not the fallback
                decoded = decode_event(text)
                assert decoded == event
                assert list(decoded) == list(event)  # members in the engine's order
                seen.add(event["type"])
    assert seen == set(EVENT_LAYOUTS)


def test_compact_events_are_short() -> None:
    event = {"at_ms": EPOCH_MS, "type": "pass-chosen", "round": 4, "exchange": 3, "seat": 6}
    assert encode_event(event) == f"[3,{EPOCH_MS},4,3,6]"


@pytest.mark.parametrize(
    "event",
    [
        {"at_ms": EPOCH_MS, "type": "seat-renamed", "seat": 2, "name": "Zoë"},  # a type unknown
        {"at_ms": EPOCH_MS, "type": "pass-chosen", "round": 1, "exchange": 1},  # a member short
        {"at_ms": EPOCH_MS, "type": "round-abandoned", "round": 1, "why": "x"},  # one more
        {"type": "round-abandoned", "round": 1},  # no time
    ],
)
def test_events_the_layout_does_not_know_are_kept_whole(event: dict[str, Any]) -> None:
    text = encode_event(event)
    assert json.loads(text) == event
    assert decode_event(text) == event


def test_events_written_before_the_compact_layout_are_read() -> None:
    old = layout_v1.event(7, EPOCH_MS, {"type": "exchange-resolved", "round": 2, "exchange": 1})
    assert decode_event(old.encode()) == {
        "seq": 7,
        "at_ms": EPOCH_MS,
        "type": "exchange-resolved",
        "round": 2,
        "exchange": 1,
    }


@settings(max_examples=40, deadline=None)
@given(**GAMES)
def test_states_written_in_fmt_1_still_decode(
    seed: int, preset: str, declaration: str, max_exchanges: int | None
) -> None:
    passes: list[Any] = []  # every resolved exchange's choices of the round, as fmt 1 kept them
    finished: dict[int, Any] = {}  # every round's result, as fmt 1 kept them
    for table, _deck in play_randomly(seed, preset, declaration, max_exchanges):
        if table.last is not None:
            finished[table.last.round] = table.last
        # fmt 1 was written before results showed the set-aside cards (RULES.md 2.11).
        results = tuple(replace(r, set_aside=()) for r in finished.values())
        rnd = table.round
        if rnd is not None and rnd.exchanges_resolved == 0:
            passes = []
        elif rnd is not None and rnd.exchanges_resolved > len(passes):
            passes.append(rnd.last_passes)
        if rnd is not None and rnd.result is not None:
            rnd = replace(rnd, result=replace(rnd.result, set_aside=()))
        if rnd is not None:
            # Read from fmt 1, the round keeps them all (until the next deal).
            rnd = replace(rnd, legacy_passes=tuple(passes))
        # Read from fmt 1, the table keeps them all (until it is written again).
        last = results[-1] if results else None
        expected = replace(table, last=last, round=rnd, legacy=results)
        assert decode(layout_v1.encode(table, passes, results)) == expected


def test_fmt_2_and_later_keep_only_the_options_that_differ_from_the_preset() -> None:
    rng = random.Random(1)
    names = ["A", "B", "C", "D"]
    plain = engine.create_table("circle", {}, names, 0, rng).table
    assert json.loads(encode(plain))["o"] == {}
    changed = engine.create_table("circle", {"claim_window_ms": 0}, names, 0, rng).table
    stored = json.loads(encode(changed))
    assert stored["fmt"] == 4 and stored["o"] == {"claim_window_ms": 0}
    assert decode(encode(changed)) == changed


def test_an_unknown_state_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown state format 0"):
        decode(json.dumps({"fmt": 0}))
    # A newer release's format: the stored-format contract's own error (503).
    with pytest.raises(StoredFormatNewer, match="state stored in format 99"):
        decode(json.dumps({"fmt": 99}))


def test_one_state_text_decodes_once_per_process_as_str_or_bytes() -> None:
    rng = random.Random(2)
    table = engine.start_round(
        engine.create_table("classic", {}, ["A", "B", "C", "D"], 0, rng).table, rng, 0
    ).table
    text = encode(table)
    first = decode(text.encode())
    assert decode(text) is first and first == table
    # Another state (the same table one pass later) is another object.
    hand = first.round.hands[0] if first.round else ()
    passed = engine.choose_pass(first, 1, 1, 0, [hand[0]], 1).table
    assert decode(encode(passed)) is not first and decode(encode(passed)) == passed


def test_the_text_a_process_encoded_decodes_to_the_table_it_was_encoded_from() -> None:
    """The read after a commit decodes the text the commit wrote: it costs
    nothing (issue 44), and a text this process did not write is decoded."""
    rng = random.Random(3)
    table = engine.start_round(
        engine.create_table("classic", {}, ["A", "B", "C", "D"], 0, rng).table, rng, 0
    ).table
    text = encode(table)
    assert decode(text) is table and decode(text.encode()) is table
    other = json.dumps({**json.loads(text), "names": ["W", "X", "Y", "Z"]})
    assert decode(other) == replace(table, names=("W", "X", "Y", "Z"))
