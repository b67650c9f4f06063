"""The compact form of a round record's entries (service.games.record): what
Redis keeps gives back exactly the entry the chain linked, for every kind
of entry of every game, the whole-object form for what no layout fits,
and the store's chain (service.storage.records) moves as the document's
does."""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.games import GAMES
from service.games.proof import Chain, chain_key
from service.games.record import decode_entry, encode_entry
from service.storage.records import ChainState, for_choice, for_commit, opening

ENTRIES: list[tuple[str, dict[str, Any]]] = [
    ("my-ship-sails", {"seat": 2, "by": "seat", "move": "pass", "exchange": 3, "cards": ["AS"]}),
    ("my-ship-sails", {"seat": 1, "by": "bot", "move": "claim"}),
    (
        "sevens",
        {"seat": 0, "by": "default", "move": "play", "turn": 9, "card": "7D", "last_card": False},
    ),  # fmt: skip
    ("sevens", {"seat": 3, "by": "seat", "move": "pass", "turn": 10}),
    (
        "may-i",
        {
            "seat": 1,
            "by": "seat",
            "move": "turn",
            "number": 4,
            "action": "lay_off",
            "arg": {"card": "JK", "meld": 0, "end": "high"},
        },
    ),  # fmt: skip
    ("may-i", {"seat": 2, "by": "seat", "move": "answer", "offer": 5, "allow": True}),
    ("may-i", {"by": "host", "move": "finish"}),
    ("may-i", {"by": "referee", "move": "resolve"}),
    # What no layout fits is kept whole: an argument more, another round.
    (
        "sevens",
        {
            "seat": 1,
            "by": "seat",
            "move": "play",
            "turn": 2,
            "card": "8S",
            "last_card": True,
            "extra": [1, "é"],
        },
    ),  # fmt: skip
    ("sevens", {"seat": 1, "by": "seat", "move": "pass", "turn": 2, "round": 6}),
]


@pytest.mark.parametrize("commutes", [False, True])
@pytest.mark.parametrize(("game", "move"), ENTRIES)
def test_an_entry_comes_back_exactly(game: str, move: dict[str, Any], commutes: bool) -> None:
    entry = {"at_ms": 1_800_000_000_123, "round": 7, **move}
    if commutes:
        entry["commutes"] = True
    layouts = GAMES[game].record_layouts
    text = encode_entry(layouts, entry, 7, 1_800_000_000_000)
    assert len(text) < 80 or '"=' in text, text  # the compact form, or kept whole
    back = decode_entry(layouts, text, 7, 1_800_000_000_000, lambda label, deck: [])
    assert back == entry


def test_a_rebuilt_stock_keeps_its_cards_and_gets_its_order_again() -> None:
    entry = {"at_ms": 5, "by": "referee", "move": "reshuffle", "round": 2,
             "label": "may-i:round:2:reshuffle:0", "deck": ["2S", "JK", "TD"],
             "order": ["TD", "2S", "JK"]}  # fmt: skip
    text = encode_entry(GAMES["may-i"].record_layouts, entry, 2, 0)
    assert "TD" in text and '"order"' not in text  # the order is derived
    back = decode_entry(GAMES["may-i"].record_layouts, text, 2, 0, lambda _, d: d[::-1][:1] + d[:2])
    assert back == entry


def test_the_stores_chain_covers_commuting_choices_as_the_document_does() -> None:
    secret = bytes(range(32))
    key = chain_key(secret)
    h = opening(1, "c0" * 32, key.hex(), 1000)

    def text(entry: dict[str, Any], number: int, base: int) -> str:
        return json.dumps([entry, number, base])

    move = {"seat": 0, "by": "seat", "move": "pass", "round": 1, "exchange": 1, "cards": ["AS"]}
    item, token, expected = for_choice(h, 1010, text, move, "AS")
    assert expected == h and token.startswith("0:") and item
    link = token.split(":")[2]
    last = {**move, "seat": 1, "cards": ["KS"]}
    # The choices hash as Redis holds it: seat 0's choice, recorded in hc.
    done = for_commit(h, token, 0, {b"0": b"AS"}, 1020, text, last)
    state = ChainState.parse(done.after)
    assert state is not None and state.moves == 1 and state.base_ms == 1020
    assert done.pending == "" and done.expected == f"{h}\n{token}"
    walk = Chain(key, "c0" * 32)
    assert walk.add({"at_ms": 1010, **move, "commutes": True}) == link
    assert walk.add({"at_ms": 1020, **last}) == state.head
    # A choice the hash holds that hc does not (another release took it).
    gap = for_commit(h, "", 0, {b"2": b"QS"}, 1020, text, last)
    assert gap.items.split("\n")[0] == "G0/2"
    # The table written by such a release since h's version: a gap too.
    later = for_commit(h, "", 3, {}, 1030, text, last)
    assert later.items.split("\n")[0] == "G3/"
