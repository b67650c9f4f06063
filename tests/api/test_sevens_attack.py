"""Sevens attacked over HTTP: what a pass, a view or a log tells the other
seats, how strictly a move's body is read, and an oracle that plays whole
matches and checks every public answer against the true hands in Redis."""

from __future__ import annotations

from ..helpers import TableClient, bearer
from .test_sevens import DEAL, turn


def test_a_pass_does_not_tell_whether_the_seat_could_have_played(
    tables: TableClient,
) -> None:
    # With voluntary passes a pass may hide a playable card: whether it did is
    # the passer's secret. After 7D, seat 3 holds 6D and passes anyway; seat 0
    # holds nothing playable and passes. The others must not tell them apart.
    t = tables.create(4, "sevens-voluntary", first_dealer=0)
    assert tables.deal(t, DEAL).status_code == 201
    assert turn(tables, t, 1, 1, 2, play="7D").status_code == 200
    voluntary = turn(tables, t, 1, 2, 3, **{"pass": True})
    forced = turn(tables, t, 1, 3, 0, **{"pass": True})
    assert voluntary.status_code == forced.status_code == 200
    passes = [e for e in tables.events(t) if e["type"] == "passed"]
    assert len(passes) == 2
    strip = [
        {k: v for k, v in e.items() if k not in ("seq", "at_ms", "seat", "turn")} for e in passes
    ]
    assert strip[0] == strip[1], passes
    view = tables.public(t)
    seat3 = {k: v for k, v in view["seats"][3].items() if k not in ("seat", "name", "cards")}
    seat0 = {k: v for k, v in view["seats"][0].items() if k not in ("seat", "name", "cards")}
    assert seat3 == seat0, view["seats"]
    # The seat itself still sees how many voluntary passes it has left.
    mine = tables.client.get(f"{t.url}/seats/3", headers=bearer(t.seats[3])).get_json()
    assert mine["voluntary_passes_left"] == 2
    # And the two answers, which only their seats see, differ in nothing
    # but what is theirs.
    a, b = voluntary.get_json(), forced.get_json()
    for key in ("action", "card", "chips_paid", "last_card", "round_status"):
        assert a[key] == b[key]


def test_a_pass_kept_before_is_read_without_its_voluntary_flag() -> None:
    from service.games import codec

    event = codec.decode_event("[102,5,1,2,3,1,true]")
    assert event == {"at_ms": 5, "type": "passed", "round": 1, "turn": 2, "seat": 3, "chips": 1}
    written = codec.encode_event(
        {"at_ms": 5, "type": "passed", "round": 1, "turn": 2, "seat": 3, "chips": 1}
    )
    assert written.startswith("[108,") and codec.decode_event(written)["chips"] == 1
