"""The dearest request of each stateless check beside a move (issue 24:
"requests that cost far more than a move"): server time of the largest input
each check endpoint accepts, against a My Ship Sails pass.

Server time is a request's time through the in-process WSGI app (its
limiter's and its commit's Redis round trips included, no network, no
client), the median of ``repeat`` calls; the pass is timed the same way over
whole rounds (``HttpTable.play_round``). The inputs fill every list to the
schemas' bounds (``service/spec/schemas*.py`` and ``service/resources/*/schemas.py``:
what the game can hold).

Beside those, bodies the schemas refuse (issue 39, tenth attacker: each
list's length was read after its items, and each bad item was an error, so
62 KB of them cost 100-190 ms): a body near the 64 KiB cap of bad items in
lists over their bounds, of bad items within them, of unknown members and of
overlong names, on every check and on the table's creation.

Beside them (issue 39), a finished round's record at its cap of
:data:`RECORD_ENTRIES` entries (a played round's record, its last entry
repeated), read as its readers do once it is rendered: revalidated
(``If-None-Match``, 304: its ETag derived without reading it) and whole
from the process's cache (200), each against a pass and a seat view. (A
record rendered anew costs more; it is charged to its reader's
``RATE_LIMIT_RECORD_CHECKS``.)
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import redis

from service.games.cards import STANDARD_DECK
from service.storage.store import MOVES_KEPT, moves_key

from .redis_cost import HttpTable, bearer, in_process_app

RANKS = "23456789TJQKA"
JSON = "application/json"


def _may_i_deck() -> list[str]:
    return [*STANDARD_DECK * 4, *["JK"] * 8]


def _runs(count: int, length: int) -> list[list[str]]:
    """``count`` runs of ``length`` cards, suit after suit."""
    out = []
    for i in range(count):
        suit = "SHDC"[i % 4]
        start = i // 4 % max(1, 13 - length + 1)
        out.append([RANKS[start + k] + suit for k in range(length)])
    return out


def _nested(depth: int) -> list[Any]:
    """An empty list ``depth`` lists deep."""
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def refused_bodies() -> dict[str, list[dict[str, Any]]]:
    """Per endpoint, bodies near the 64 KiB cap that the schemas refuse."""
    unknown = {f"k{n}": 0 for n in range(5000)}
    return {
        "/v1/checks/deal": [
            {"variant": "may-i", "players": 8, "hands": [[0] * 2600] * 8},
            {"variant": "may-i", "players": 8, "hands": [["AS"] * 1300] * 8},
            {"variant": "may-i", "players": 6, "hands": [[[0] * 20] * 26] * 6},
            unknown,
        ],
        "/v1/checks/claim": [
            {"variant": "classic", "players": 4, "hand": [0] * 20000},
            # A lone surrogate in a long name over many items (thirteenth
            # attacker: each item's pointer repeated the name, 825 ms).
            {"\ud800" + "k" * 32000: [0] * 10000},
            # One emoji's escape over 64 KiB of nested lists, a lone surrogate
            # over them, and escaped backslashes before a u (fifteenth
            # attacker: the walk for lone surrogates, 114 ms; 14 ms); the
            # nested lists are now refused unparsed (sixteenth: 16-22 ms).
            {"variant": "classic", "players": 4, "hand": ["\U0001f600"], "x": [_nested(900)] * 33},
            {"variant": "classic", "players": 4, "hand": ["\ud800"], "x": [_nested(900)] * 33},
            {"variant": "classic", "players": 4, "hand": "\\u" * 20000},
            # As many arrays as a 64 KiB body may hold (CONTAINER_BYTES), parsed.
            {"variant": "classic", "players": 4, "hand": ["AS"], "x": [[]] * 4090},
        ],
        "/v1/checks/exchange": [
            {"variant": "classic", "hands": [[0] * 3000] * 7, "passes": [None] * 7}
        ],
        "/v1/checks/may-i/lay-down": [{"round": 5, "melds": [[0] * 2000] * 6}],
        "/v1/checks/may-i/discard": [{"hand": [0] * 216, "melds": [[0] * 24] * 64, "card": "2S"}],
        "/v1/checks/sevens/play": [{"variant": "sevens", "hand": [0] * 20000}],
        "/v1/tables": [
            {"variant": "classic", "players": [0] * 10000},
            {"variant": "classic", "players": ["Bot" * 3000 + "\u202e", "b", "c"]},
            {"variant": "classic", "players": ["a", "b", "c"], "options": unknown},
        ],
    }


def inputs() -> dict[str, list[dict[str, Any]]]:
    """Per check endpoint, bodies at its bounds (the dearest is reported),
    and the refused bodies of :func:`refused_bodies`."""
    found = _largest_accepted()
    for path, bodies in refused_bodies().items():
        found.setdefault(path, []).extend(bodies)
    return found


def _largest_accepted() -> dict[str, list[dict[str, Any]]]:
    deck = _may_i_deck()
    big_set = [f"7{s}" for s in "SHDC" * 4] + ["JK"] * 8  # 24 cards: the longest meld
    hands8 = [deck[i * 10 : (i + 1) * 10] for i in range(8)]
    may_i_deal = {
        "variant": "may-i",
        "options": {"decks": 4, "jokers": 2},
        "players": 8,
        "hands": hands8,
        "discard": deck[80],
        "stock": deck[81:],
    }
    ship_deal = {
        "variant": "classic",
        "players": 7,
        "hands": [deck[i * 26 : (i + 1) * 26] for i in range(7)],
        "stock": deck[182:216],
    }
    full = list(STANDARD_DECK)
    # Every list at its own bound: more cards than any deck, refused by the
    # rules once the schema has read them all.
    every_list_full = {
        "variant": "may-i",
        "players": 8,
        "hands": [deck[:26]] * 10,
        "stock": deck,
        "discard": deck[0],
    }
    return {
        "/v1/checks/deal": [may_i_deal, ship_deal, every_list_full],
        "/v1/checks/claim": [  # noqa: C416 - one body per hand
            {
                "variant": "classic",
                "players": 4,
                "options": {"hand_size": 13, "win_count": 13, "deck": "full"},
                "hand": hand,
            }
            for hand in (full[:13], full[:26])
        ],
        "/v1/checks/exchange": [
            {
                "variant": "classic",
                "options": {"hand_size": 13, "win_count": 13, "deck": "full", "pass_count": 2},
                "hands": [full[i * 13 : (i + 1) * 13] for i in range(4)],
                "passes": [full[i * 13 : i * 13 + 2] for i in range(4)],
            },
            {
                "variant": "classic",
                "options": {"hand_size": 7, "win_count": 7, "deck": "full", "pass_count": 2},
                "hands": [full[i * 7 : (i + 1) * 7] for i in range(7)],
                "passes": [full[i * 7 : i * 7 + 2] for i in range(7)],
            },
            {"variant": "classic", "hands": [full[:27]] * 10, "passes": [full[:27]] * 10},
        ],
        "/v1/checks/may-i/lay-down": [
            {"round": 5, "melds": [big_set] * 6},
            {"round": 5, "melds": [*_runs(4, 13), big_set, big_set]},
        ],
        "/v1/checks/may-i/lay-off": [
            {"meld": big_set, "card": "7S"},
            {"meld": ["JK", *_runs(1, 13)[0][1:]], "card": "JK", "end": "low"},
        ],
        "/v1/checks/may-i/discard": [
            {"hand": deck[:72], "melds": _runs(24, 6), "card": deck[0]},
            {"hand": deck[:24], "melds": [big_set] * 8, "card": deck[0]},
            {"hand": deck[:215], "melds": [], "card": deck[0]},
            {"hand": deck, "melds": [big_set] * 24, "card": deck[0]},
        ],
        "/v1/checks/deal-proof": [
            # Its bounds: 200 shuffles of 10,000 cards in all, ten seeds.
            {
                "proof": {
                    "secret": "00" * 32,
                    "commitment": "",
                    "seeds": ["seed"] * 10,
                    "shuffles": [
                        {
                            "label": f"card-referee/deal/shuffle/{i}",
                            "deck": deck[:50],
                            "order": deck[:50],
                        }
                        for i in range(200)
                    ],
                }
            },  # fmt: skip
            # 750 KB of empty lists (the body may be 1 MiB): parsing is the cost.
            {"proof": {"x": [[]] * 250_000}},
        ],
        "/v1/checks/sevens/play": [
            {
                "variant": "fan-tan-two-decks",
                "hand": [c for c in STANDARD_DECK * 2 if c[0] != "7"],
                "layout": [{"suit": s, "low": f"7{s}", "high": f"7{s}"} for s in "SHDCSHDC"],
                "card": "6S",
            }
        ],
    }


def _median_ms(call: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


RECORD_ENTRIES = MOVES_KEPT
"""The entries a round's record keeps at most (``service.storage.store.MOVES_KEPT``)."""


def record_reads(url: str, client: Any, repeat: int) -> dict[str, Any]:
    """The record figures of the module docstring (ms: medians of ``repeat``),
    read from an address of their own (the checks above spent this one's
    ``RATE_LIMIT_RECORD_CHECKS``, which the first render counts on)."""
    client = client.application.test_client()
    client.environ_base["REMOTE_ADDR"] = "192.0.2.39"
    table = HttpTable(client, 4)
    table.play_round()
    rclient = redis.Redis.from_url(url)
    try:
        items = rclient.lrange(moves_key(table.id), 0, -1)  # its number, header, entries
        rclient.rpush(moves_key(table.id), *[items[-1]] * (RECORD_ENTRIES - (len(items) - 2)))
    finally:
        rclient.close()
    path = f"{table.url}/rounds/{table.round}/record"
    first = client.get(path)  # rendered once: then kept
    assert first.status_code == 200, first.get_json()
    tag = {"If-None-Match": first.headers["ETag"]}
    seat = {"headers": bearer(table.tokens[1])}
    return {
        "entries": RECORD_ENTRIES,
        "bytes": len(first.data),
        "revalidated_ms": _median_ms(partial(client.get, path, headers=tag), repeat),
        "revalidated_status": client.get(path, headers=tag).status_code,
        "kept_ms": _median_ms(partial(client.get, path), repeat),
        "seat_view_ms": _median_ms(partial(client.get, f"{table.url}/seats/1", **seat), repeat),
    }


def measure(url: str, repeat: int = 30, rounds: int = 3) -> dict[str, Any]:
    """Each check endpoint's dearest input's median server time (ms), its
    status and problem code (a rule's refusal, or the schemas' for the
    refused bodies), every input's (status, code) in ``answers``, and a
    pass's median server time (ms)."""
    app = in_process_app(url)
    client = app.test_client()
    passes: list[float] = []

    def each(kind: str, call: Callable[[], Any]) -> Any:
        started = time.perf_counter()
        answer = call()
        if kind == "pass":
            passes.append((time.perf_counter() - started) * 1000)
        return answer

    for _ in range(rounds):
        HttpTable(client, 4).play_round(each)
    checks: dict[str, Any] = {}
    answers: dict[str, list[tuple[int, str | None]]] = {}
    for path, bodies in inputs().items():
        dearest: dict[str, Any] | None = None
        answers[path] = []
        for n, body in enumerate(bodies):
            # Encoded once: the test client's own encoding is not the server's time.
            post = partial(client.post, path, data=json.dumps(body), content_type=JSON)
            first = post()  # warm, and its answer
            code = first.get_json().get("code") if first.status_code >= 400 else None
            answers[path].append((first.status_code, code))
            ms = _median_ms(post, repeat)
            if dearest is None or ms > dearest["ms"]:
                dearest = {"ms": ms, "status": first.status_code, "code": code, "input": n}
        checks[path] = dearest
    return {
        "pass_ms": statistics.median(passes),
        "passes": len(passes),
        "checks": checks,
        "answers": answers,
        "records": record_reads(url, client, repeat),
    }
