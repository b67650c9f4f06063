"""No seat can learn a hidden order from what it sees (issue 24, RULES.md 4.9).

For each game, an attacker holding what one seat sees (the public events and
its own cards) tries to recover the secret behind the hidden cards: every
seed of the families a careless referee uses (Mersenne Twister seeded with a
small number or a short string, a short key through the right construction)
and, for May I?'s reshuffles, the round secret's own bits. Against the
service's random source (the CSPRNG) it finds nothing; against a planted weak
source the same attacker recovers everything, so the attack is real.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from service.games import game_of_variant
from service.games.base import draw_secret
from service.games.drbg import SECRET_BYTES, shuffled
from service.games.may_i import engine
from service.games.may_i.engine import reshuffle_label
from service.games.may_i.state import Step, Table

from .may_i.common import T0, move

SMALL = 1 << 14
"""How many candidates of each weak family the attacker tries (enough to
find a planted weak seed below it; a few seconds in all)."""

# --- the construction, re-implemented from drbg's docstring alone --------------


def reference_shuffle(secret: bytes, label: str, items: list[str]) -> list[str]:
    """HMAC_DRBG (SHA-256) on secret || label, 32-bit rejection sampling,
    Fisher–Yates from the last position: written from the module's text."""

    def h(k: bytes, d: bytes) -> bytes:
        return hmac.new(k, d, hashlib.sha256).digest()

    k, v = bytes(32), b"\x01" * 32
    seed = secret + label.encode()
    for tag in (b"\x00", b"\x01"):
        k = h(k, v + tag + seed)
        v = h(k, v)
    stream = b""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        while True:
            if len(stream) < 4:
                v = h(k, v)
                stream += v
            x, stream = int.from_bytes(stream[:4], "big"), stream[4:]
            if x < 2**32 - 2**32 % n:
                break
        j = x % n
        out[i], out[j] = out[j], out[i]
    return out


def test_the_shuffle_is_the_documented_construction() -> None:
    cards = [f"{r}{s}" for s in "CDHS" for r in "A23456789TJQK"]
    for n in range(20):
        secret = hashlib.sha256(b"vector %d" % n).digest()
        label = reshuffle_label(n % 5 + 1, n)
        assert shuffled(secret, label, cards) == reference_shuffle(secret, label, cards)
    # A known answer, so that the construction cannot drift unnoticed (docs/ will publish it).
    secret = bytes(range(32))
    assert shuffled(secret, "may-i:round:1:reshuffle:0", list("ABCDEFGHIJ")) == list(
        "".join(reference_shuffle(secret, "may-i:round:1:reshuffle:0", list("ABCDEFGHIJ")))
    )


def test_a_short_secret_is_refused() -> None:
    with pytest.raises(ValueError, match="guessable"):
        shuffled(b"\x01\x02\x03", "label", ["AH", "2H"])


def test_the_round_secret_has_full_entropy_from_the_service_source() -> None:
    """Every one of the 256 bits of 300 round secrets takes both values, and
    no two are alike (a 24-bit secret leaves 232 bits always 0)."""
    rng = random.SystemRandom()
    table = engine.create_table("may-i", {}, ["A", "B", "C", "D"], 0, rng).table
    secrets = []
    for _ in range(300):
        rnd = engine.start_round(table, rng, T0, {}).table.round
        assert rnd is not None and len(rnd.secret) == SECRET_BYTES
        secrets.append(int.from_bytes(rnd.secret, "big"))
    assert len(set(secrets)) == 300
    ones = [sum(s >> bit & 1 for s in secrets) for bit in range(8 * SECRET_BYTES)]
    assert all(30 < count < 270 for count in ones), min(ones)


# --- May I?: the reshuffled stock ----------------------------------------------


Seen = list[tuple[int, str]]
"""What seat 1 drew from the rebuilt stock: (how many cards were drawn
from it before, the card), as the public ``stock-drawn`` events and its own
hand tell that seat."""


def play_to_reshuffle(rng: Any) -> tuple[Table, list[str], Seen]:
    """A 3-seat May I? round dealt with ``rng`` where nobody lays down, played
    until the stock was rebuilt from the pile and seat 1 has drawn five cards
    from it. Returns the table, the pile as the events made it public just
    before the reshuffle (bottom first), and what seat 1 saw."""
    table = engine.create_table("may-i", {"may_i_window_ms": 0}, ["A", "B", "C"], 0, rng).table
    table = engine.start_round(table, rng, T0, {}).table
    pile: list[str] = []
    drawn: Seen = []
    reshuffled = False
    since = 0
    for _ in range(2000):
        rnd = table.round
        assert rnd is not None and rnd.playing
        seat = rnd.on_turn
        if rnd.step is Step.DRAW:
            table = move(table, seat, "decline").table
            continue
        before = rnd.hands[seat]
        t = move(table, seat, "draw")
        if "stock-reshuffled" in [e["type"] for e in t.events]:
            reshuffled, pile = True, list(rnd.pile)
        table = t.table
        hand = table.round.hands[seat]  # type: ignore[union-attr]
        got = [c for c in hand if c not in before or hand.count(c) > before.count(c)]
        if reshuffled:
            if seat == 1:
                drawn.append((since, got[0]))
                if len(drawn) == 5:
                    return table, pile, drawn
            since += 1
        rnd = table.round
        assert rnd is not None
        card = next(c for c in reversed(hand) if engine.discard_allowed(hand, rnd.melds, c))
        table = move(table, seat, "discard", card).table
    raise AssertionError("no reshuffle in 2000 turns")


def matches(order: list[str], drawn: Seen) -> bool:
    """Whether a stock in ``order`` (drawn from its end) gives what seat 1 saw."""
    return all(order[-1 - before] == card for before, card in drawn)


def weak_candidates(pile_under_top: list[str], round_no: int) -> Iterator[tuple[str, list[str]]]:
    """Every stock order that a weak secret of each family would give."""
    for s in range(SMALL):
        stock = list(pile_under_top)
        random.Random(f"{s}:0").shuffle(stock)  # the first build's reshuffle
        yield f"mt-str {s}", stock
        stock = list(pile_under_top)
        random.Random(s).shuffle(stock)
        yield f"mt-int {s}", stock
        secret = s.to_bytes(SECRET_BYTES, "big")  # a short key through the right construction
        yield f"short {s}", shuffled(secret, reshuffle_label(round_no, 0), pile_under_top)


def recover(pile: list[str], drawn: Seen, round_no: int) -> list[str]:
    return [name for name, order in weak_candidates(pile[:-1], round_no) if matches(order, drawn)]


class WeakSource(random.Random):
    """A planted weak source: a round secret that is a small number."""

    def getrandbits(self, k: int, /) -> int:
        return 1234 if k == 8 * SECRET_BYTES else super().getrandbits(k)


@pytest.mark.parametrize("planted", [False, True], ids=["service source", "planted weak secret"])
def test_one_seat_cannot_recover_may_is_reshuffled_stock(planted: bool) -> None:
    rng: Any = WeakSource(5) if planted else random.SystemRandom()
    table, pile, drawn = play_to_reshuffle(rng)
    assert table.round is not None
    found = recover(pile, drawn, table.round.number)
    assert found == (["short 1234"] if planted else [])


# --- My Ship Sails and Sevens: the other seats' hands ---------------------------


def dealt_hands(variant: str, seats: int, rng: Any) -> list[list[str]]:
    game = game_of_variant(variant)
    names = [f"P{i}" for i in range(seats)]
    table = game.create_table(variant, {}, names, 0, rng).table
    table = game.start_round(table, rng, T0, {}).table
    return [sorted(game.seat_view(table, s, T0)["hand"]) for s in range(seats)]


def dealt_hands_seat0(variant: str, seats: int, seed: int) -> list[str]:
    return dealt_hands(variant, seats, random.Random(seed))[0]


@pytest.mark.parametrize("variant", ["classic", "sevens"])
@pytest.mark.parametrize("planted", [False, True], ids=["service source", "planted weak seed"])
def test_one_seat_cannot_recover_the_other_hands(variant: str, planted: bool) -> None:
    rng: Any = random.Random(777) if planted else random.SystemRandom()
    hands = dealt_hands(variant, 4, rng)
    # Seat 0's hand against the deal of every Mersenne Twister seed below
    # SMALL, then each seed that deals it against the whole deal. A seed may
    # deal seat 0 the same hand by chance (classic: 1 in C(28, 7), so about
    # 1.4 % of runs meet one of 16,384 seeds), but it gives the other hands
    # only when it is the table's source.
    found = [s for s in range(SMALL) if dealt_hands_seat0(variant, 4, s) == hands[0]]
    recovered = [s for s in found if dealt_hands(variant, 4, random.Random(s)) == hands]
    assert recovered == ([777] if planted else [])


def test_every_game_draws_from_the_csprng(app: Any) -> None:
    """The app's random source is the operating system's CSPRNG (every deal,
    draw for the first dealer and round secret comes from it)."""
    assert type(app.extensions["referee"].rng) is random.SystemRandom
    assert draw_secret(random.SystemRandom()) != draw_secret(random.SystemRandom())


def test_a_stored_round_keeps_its_secret() -> None:
    rng = random.SystemRandom()
    game = game_of_variant("may-i")
    table = engine.start_round(
        engine.create_table("may-i", {}, ["A", "B", "C"], 0, rng).table, rng, T0, {}
    ).table
    again = game.decode(game.encode(table))
    assert again.round.secret == table.round.secret
    legacy = game.encode(table).replace(f'"sc":"{table.round.secret.hex()}"', '"sd":1234')
    assert game.decode(legacy).round.secret == (1234).to_bytes(32, "big")
    assert replace(again, round=None) == replace(table, round=None)
