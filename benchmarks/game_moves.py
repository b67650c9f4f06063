"""Sevens turns and May I? moves over HTTP, as fast as the service answers
(issue 13: "Sevens plays and May I? moves in the bench")::

    python -m benchmarks.game_moves --url http://127.0.0.1:8000 --game sevens --seats 4
    python -m benchmarks.game_moves --url http://127.0.0.1:8000 --game may-i --tables 16

``tables`` tables play at once, each a loop of its own (aiohttp, one
keep-alive session for all). A table is created (``POST /v1/tables``, the
preset ``sevens`` or ``may-i``, seat 0 deals first), then round after round
is dealt by the host with a submitted deal (``POST …/rounds`` with the
hands, and for May I? the stock and first discard) and played to its end by
the games' own bots (``service.games.*.players``), one request per move:

- Sevens: ``PUT …/turns/{n}`` with ``{"play": card}`` or ``{"pass": true}``;
- May I?: ``PUT …/moves/{n}`` (take or decline the discard, draw, lay down,
  lay off, discard); when the seat on turn declines, a seat that wants the
  card asks (``POST …/may-i``) and every other seat answers at once, all
  concurrently (``PUT …/may-i/{offer}/answers/{seat}``; deny when it wants
  the card itself); an offer nobody wants is left to lapse: the seat on
  turn waits for the window (``window_ms``, a table option) before it draws.

The client knows every card because it dealt them: it keeps a mirror of
each table in the pure engine and applies the move the service accepted to
it (after an empty stock is reshuffled, the service's order is secret: each
hand the service answers, or a seat view read after a May I? card is given,
puts the mirror right). When a match ends, or the mirror and the service
disagree, the table is left and a new one created.

Counted as moves: the 2xx answers to turns, moves, asks and answers started
in the measured window (after ``warmup`` s); latency is from sending to
reading the whole answer; every other answer (create, deal, seat views)
only counts in ``errors`` when it is not 2xx. The figures are the client's:
on a small machine it competes with the service for the CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import aiohttp

from service.games.match import MatchStatus
from service.games.may_i import engine as may_i
from service.games.may_i.melds import sort_hand
from service.games.may_i.options import deck_for
from service.games.may_i.players import bot as may_i_bot
from service.games.may_i.players import wants
from service.games.may_i.state import Step
from service.games.may_i.state import Table as MayITable
from service.games.sevens import engine as sevens
from service.games.sevens.deal import shuffle_and_deal as sevens_deal
from service.games.sevens.players import bot as sevens_bot
from service.games.sevens.state import RoundStatus
from service.games.sevens.state import Table as SevensTable

from .exchange_streams import Streamed
from .load import send

GAMES = ("sevens", "may-i")
MOVE_KINDS = ("turn", "move", "ask", "answer")
"""The kinds of request counted as moves."""


class Disagree(Exception):
    """The service answered what the mirror did not expect: leave the table."""


@dataclass
class Tally:
    """What the measured window [``start``, ``end``) saw: latencies (ms) of
    the moves answered 2xx, moves by kind, and every other status by kind."""

    start: float
    end: float
    latencies: list[float] = field(default_factory=list)
    moves: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    notes: Counter[str] = field(default_factory=Counter)
    requests: Counter[str] = field(default_factory=Counter)
    """Every 2xx answer of the whole run by kind, warm-up included (HTTP
    requests per move), and the streams opened."""
    moves_whole_run: int = 0

    def add(self, kind: str, started: float, elapsed: float, status: int, code: str = "") -> None:
        if 200 <= status < 300:
            self.requests[kind] += 1
            self.moves_whole_run += kind in MOVE_KINDS
        if not self.start <= started < self.end:
            return
        if 200 <= status < 300:
            if kind in MOVE_KINDS:
                self.moves[kind] += 1
                self.latencies.append(elapsed * 1000.0)
        else:
            self.errors[f"{kind} {status} {code}".rstrip()] += 1

    def over(self) -> bool:
        return time.perf_counter() >= self.end


class Http:
    """One aiohttp session for every table; each call is timed."""

    def __init__(self, base: str, tally: Tally, connections: int, streams: bool = False) -> None:
        self.base = base.rstrip("/")
        self.tally = tally
        self.streamed = Streamed(connections) if streams else None
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=connections),
            timeout=aiohttp.ClientTimeout(total=60),
        )

    async def call(
        self, kind: str, method: str, path: str, token: str | None = None, body: Any = None
    ) -> tuple[int, Any]:
        """``(status, decoded JSON body or None)``; status 0 for a transport error."""
        started = time.perf_counter()
        try:
            status, answer = await send(self.session, method, self.base + path, token, body)
        except (TimeoutError, aiohttp.ClientError) as error:
            self.tally.notes[f"{kind}: {type(error).__name__}"] += 1
            self.tally.add(kind, started, 0.0, 0)
            return 0, None
        elapsed = time.perf_counter() - started
        code = answer.get("code", "") if status >= 300 and isinstance(answer, dict) else ""
        self.tally.add(kind, started, elapsed, status, code)
        return status, answer

    async def leave(self, seats: Seats) -> None:
        """Close the streams of a table the loop leaves."""
        if self.streamed is not None and seats.feeds is not None:
            await self.streamed.leave(seats.feeds)

    async def close(self) -> None:
        await self.session.close()
        if self.streamed is not None:
            await self.streamed.close()


@dataclass
class Seats:
    """A table on the service: its path and tokens (and, with ``--streams``,
    every seat's stream: :func:`turn_known`)."""

    path: str
    host: str
    tokens: list[str]
    feeds: list[Any] | None = None


def on_turn(round_no: int, key: str, number: int) -> Any:
    """A seat view of ``round_no`` whose ``key`` (``turn``, ``move``) is
    ``number`` with the seat on turn."""
    return lambda v: v["round"] == round_no and v[key] == number and v["on_turn"]


async def turn_known(http: Http, seats: Seats, seat: int, wanted: Any) -> None:
    """With streams, wait until ``seat``'s stream shows its turn (a seat
    frame ``wanted`` accepts) before it moves: turns are read from the
    seat streams, as a front end learns them. Raises :class:`Disagree`
    when the frame does not come in time."""
    if seats.feeds is None:
        return
    if await seats.feeds[seat].until(wanted) is None:
        raise Disagree("no seat frame on the stream in time")


async def _create(http: Http, body: dict[str, Any]) -> Seats | None:
    status, created = await http.call("create", "POST", "/v1/tables", None, body)
    if status != 201:
        http.tally.notes[f"create answered {status}"] += 1
        await asyncio.sleep(0.05)
        return None
    seats = Seats(
        f"/v1/tables/{created['table_id']}",
        created["host_token"],
        [s["token"] for s in created["seat_tokens"]],
    )
    if http.streamed is not None:
        client = _StreamClient(http)
        if not await http.streamed.follow(client, seats.path, seats.tokens):
            return None
        seats.feeds = http.streamed.feeds.pop(seats.path)
        http.tally.requests["stream"] += len(seats.tokens)
    return seats


class _StreamClient:
    """What :meth:`benchmarks.exchange_streams.Streamed.follow` needs of a
    client: the base URL and a recorder's notes and answer counts."""

    def __init__(self, http: Http) -> None:
        self.base = http.base
        self.recorder = self
        self.notes = http.tally.notes
        self.answered: Counter[str] = Counter()


async def _deal(http: Http, seats: Seats, deal: dict[str, Any]) -> None:
    status, _ = await http.call("deal", "POST", f"{seats.path}/rounds", seats.host, deal)
    if status != 201:
        raise Disagree(f"deal answered {status}")


# --- Sevens ---------------------------------------------------------------------


async def sevens_tables(http: Http, rng: random.Random, players: int) -> None:
    """Sevens tables one after another until the window ends."""
    names = [f"P{i}" for i in range(players)]
    while not http.tally.over():
        seats = await _create(http, {"variant": "sevens", "players": names, "first_dealer": 0})
        if seats is None:
            continue
        table = sevens.create_table("sevens", {}, names, 0, rng).table
        try:
            while table.match_status is MatchStatus.IN_PROGRESS and not http.tally.over():
                table = await _sevens_round(http, rng, seats, table)
            http.tally.notes["sevens matches played" if not http.tally.over() else "left"] += 1
        except Disagree as why:
            http.tally.notes[str(why)] += 1
        await http.leave(seats)


async def _sevens_round(
    http: Http, rng: random.Random, seats: Seats, table: SevensTable
) -> SevensTable:
    hands = sevens_deal(table.options, table.seats, table.next_dealer, rng)
    deal = {"hands": [list(h) for h in hands]}
    await _deal(http, seats, deal)
    table = sevens.start_round(table, rng, 0, deal).table
    while (rnd := table.round) is not None and rnd.status is RoundStatus.PLAYING:
        if http.tally.over():
            return table
        seat = rnd.on_turn
        assert seat is not None
        number, turn = rnd.number, rnd.turn
        await turn_known(
            http,
            seats,
            seat,
            on_turn(number, "turn", turn),
        )
        choice = sevens_bot(table, seat, rng)
        path = f"{seats.path}/rounds/{rnd.number}/turns/{rnd.turn}"
        if choice["action"] == "play":
            body: dict[str, Any] = {"play": choice["card"], "last_card": choice["last_card"]}
        else:
            body = {"pass": True}
        status, answer = await http.call("turn", "PUT", path, seats.tokens[seat], body)
        if status != 200:
            raise Disagree(f"turn answered {status}")
        if choice["action"] == "play":
            t = sevens.play(
                table, rnd.number, rnd.turn, seat, choice["card"], choice["last_card"], 0
            )
        else:
            t = sevens.pass_turn(table, rnd.number, rnd.turn, seat, 0)
        table = t.table
    http.tally.notes["sevens rounds played"] += 1
    return table


# --- May I? ---------------------------------------------------------------------


def fix_hand(table: MayITable, seat: int, hand: Sequence[str]) -> MayITable:
    """The mirror with ``seat`` holding ``hand`` (what the service says): a
    card the service drew for it after a reshuffle swaps places with the
    mirror's in the stock. Raises :class:`Disagree` when that cannot be."""
    rnd = table.round
    assert rnd is not None
    mine, theirs = Counter(rnd.hands[seat]), Counter(hand)
    if mine == theirs:
        return table
    gained, lost = sorted((theirs - mine).elements()), sorted((mine - theirs).elements())
    stock = list(rnd.stock)
    if len(gained) != len(lost) or not rnd.reshuffles:
        raise Disagree("a hand differs from the mirror")
    for got, had in zip(gained, lost, strict=True):
        if got not in stock:
            raise Disagree("a hand differs from the mirror")
        stock[stock.index(got)] = had
    hands = list(rnd.hands)
    hands[seat] = sort_hand(hand)
    return replace(table, round=replace(rnd, hands=tuple(hands), stock=tuple(stock)))


async def may_i_tables(http: Http, rng: random.Random, players: int, window_ms: int) -> None:
    """May I? tables one after another until the window ends."""
    names = [f"P{i}" for i in range(players)]
    options = {"may_i_window_ms": window_ms}
    while not http.tally.over():
        body = {"variant": "may-i", "players": names, "first_dealer": 0, "options": options}
        seats = await _create(http, body)
        if seats is None:
            continue
        table = may_i.create_table("may-i", options, names, 0, rng).table
        try:
            while table.match_status is MatchStatus.IN_PROGRESS and not http.tally.over():
                table = await _may_i_round(http, rng, seats, table)
            http.tally.notes["may-i matches played" if not http.tally.over() else "left"] += 1
        except Disagree as why:
            http.tally.notes[str(why)] += 1
        await http.leave(seats)


async def _may_i_round(http: Http, rng: random.Random, seats: Seats, table: MayITable) -> MayITable:
    hands, stock, discard = may_i.shuffle_and_deal(
        table.seats, table.next_dealer, deck_for(table.options), rng
    )
    deal = {"hands": [list(h) for h in hands], "stock": list(stock[::-1]), "discard": discard}
    await _deal(http, seats, deal)
    now = 0  # the mirror's clock: a window closes only when the client says so
    table = may_i.start_round(table, rng, now, deal).table
    while (rnd := table.round) is not None and rnd.playing:
        if http.tally.over():
            return table
        if rnd.step is Step.MAY_I and rnd.offer is not None:
            table = await _offer(http, rng, seats, table)
            continue
        seat = rnd.on_turn
        number, move = rnd.number, rnd.move
        await turn_known(
            http,
            seats,
            seat,
            on_turn(number, "move", move),
        )
        choice = may_i_bot(table, seat)
        action, argument = choice["action"], choice["argument"]
        path = f"{seats.path}/rounds/{rnd.number}/moves/{rnd.move}"
        body = {action: True if argument is None else argument}
        status, answer = await http.call("move", "PUT", path, seats.tokens[seat], body)
        if status == 409 and answer and answer.get("code") == "may-i-open":
            http.tally.notes["drew before the window closed"] += 1
            await asyncio.sleep(0.01)
            continue
        if status != 200:
            raise Disagree(f"move answered {status}")
        table = may_i.turn(table, rnd.number, rnd.move, seat, action, argument, now).table
        playing = table.round is not None and table.round.playing
        if (answer["round_status"] == "playing") != playing:
            raise Disagree("the round ended on one side only")
        if playing:
            table = fix_hand(table, seat, answer["hand"])
    http.tally.notes["may-i rounds played"] += 1
    if table.round is not None and table.round.reshuffles:
        http.tally.notes["may-i rounds with a reshuffled stock"] += 1
    return table


async def _offer(http: Http, rng: random.Random, seats: Seats, table: MayITable) -> MayITable:
    """One May I? offer: asked for and answered by every seat at once, or
    left to lapse (the client sleeps for the window)."""
    rnd = table.round
    assert rnd is not None and rnd.offer is not None
    offer = rnd.offer
    base = f"{seats.path}/rounds/{rnd.number}/may-i"
    askers = [
        s
        for s in range(table.seats)
        if s != rnd.on_turn and rnd.pile_by[-1] != s and wants(table, s)
    ]
    if askers:
        asker = rng.choice(askers)
        body = {"offer": offer.n}
        status, _ = await http.call("ask", "POST", base, seats.tokens[asker], body)
        if status == 200:
            table = may_i.ask(table, rnd.number, offer.n, asker, offer.opened_ms).table
            waiting = [s for s in range(table.seats) if s not in (rnd.on_turn, asker)]
            allow = {s: not wants(table, s) for s in waiting}
            answers = await asyncio.gather(
                *(
                    http.call(
                        "answer",
                        "PUT",
                        f"{base}/{offer.n}/answers/{s}",
                        seats.tokens[s],
                        {"allow": allow[s]},
                    )
                    for s in waiting
                )
            )
            for s, (status, _) in zip(waiting, answers, strict=True):
                if status == 200:
                    t = may_i.answer(table, rnd.number, offer.n, s, allow[s], offer.opened_ms)
                    table = t.table
            after = table.round
            assert after is not None
            if after.offer is not None and after.offer.n == offer.n:
                table = may_i.settle_due(table, offer.until_ms).table  # an answer came too late
            return await _after_give(http, seats, rnd.hands, table)
        if status != 409:
            raise Disagree(f"May I? answered {status}")
        http.tally.notes["asked too late"] += 1
    else:
        await asyncio.sleep(table.options.may_i_window_ms / 1000 + 0.005)
    table = may_i.settle_due(table, offer.until_ms).table
    return await _after_give(http, seats, rnd.hands, table)


async def _after_give(
    http: Http, seats: Seats, before: Sequence[Sequence[str]], table: MayITable
) -> MayITable:
    """After a May I? card is given from a reshuffled stock, read the
    taker's hand (the service's stock order is secret)."""
    rnd = table.round
    assert rnd is not None
    if not rnd.reshuffles:
        return table
    for seat in range(table.seats):
        if len(rnd.hands[seat]) == len(before[seat]):
            continue
        status, view = await http.call(
            "seat", "GET", f"{seats.path}/seats/{seat}", seats.tokens[seat]
        )
        if status != 200:
            raise Disagree(f"seat view answered {status}")
        table = fix_hand(table, seat, view["hand"])
    return table


# --- the measure ------------------------------------------------------------------


async def _measure(
    base_url: str,
    game: str,
    seats: int,
    tables: int,
    seconds: float,
    warmup: float,
    seed: int,
    window_ms: int,
    streams: bool = False,
) -> dict[str, Any]:
    now = time.perf_counter()
    tally = Tally(now + warmup, now + warmup + seconds)
    http = Http(base_url, tally, connections=max(tables * seats, 16), streams=streams)
    rng = random.Random(seed)
    try:
        if game == "sevens":
            loops = [sevens_tables(http, random.Random(rng.random()), seats) for _ in range(tables)]
        else:
            loops = [
                may_i_tables(http, random.Random(rng.random()), seats, window_ms)
                for _ in range(tables)
            ]
        await asyncio.gather(*loops)
    finally:
        await http.close()
    latencies = sorted(tally.latencies)
    moves = len(latencies)

    def pct(p: float) -> float | None:
        if not latencies:
            return None
        return round(latencies[min(len(latencies) - 1, int(p * len(latencies)))], 2)

    return {
        "game": game,
        "seats": seats,
        "tables": tables,
        "seconds": seconds,
        "moves": moves,
        "moves_per_s": round(moves / seconds, 1),
        "p50_ms": pct(0.50),
        "p99_ms": pct(0.99),
        "mean_ms": round(statistics.fmean(latencies), 2) if latencies else None,
        "moves_by_kind": dict(tally.moves),
        "streams": streams,
        "moves_whole_run": tally.moves_whole_run,
        "requests_whole_run": dict(tally.requests),
        "errors": dict(tally.errors),
        "notes": dict(tally.notes),
        # The client's CPU (bots, mirrors, HTTP) competes with the service's on a small machine.
        "client_cpu_s": round(_cpu_seconds(), 2),
    }


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(
    base_url: str,
    game: str,
    seats: int,
    tables: int,
    seconds: float,
    *,
    warmup: float = 1.0,
    seed: int = 1,
    window_ms: int = 200,
    streams: bool = False,
) -> dict[str, Any]:
    """Play ``tables`` tables of ``game`` (``sevens`` or ``may-i``) with
    ``seats`` seats against the service at ``base_url`` for ``warmup +
    seconds`` s (see the module docstring) and return the figures of the
    last ``seconds``: ``moves`` (2xx turns / moves, asks, answers),
    ``moves_per_s``, ``p50_ms`` / ``p99_ms`` / ``mean_ms`` (their latency,
    ms), ``moves_by_kind``, ``errors`` (``"kind status code"`` → count,
    every non-2xx answer; status 0 a transport error), ``notes`` (rounds and
    matches played, tables left and why) and ``client_cpu_s`` (this process's
    CPU time so far, s). ``window_ms`` is May I?'s window
    (the client waits it out when nobody asks). Raises ``ValueError`` for an
    unknown game. With ``streams`` every seat follows its seat stream and
    the seat on turn moves once its stream shows its turn (``moves_whole_run``
    and ``requests_whole_run``, 2xx answers by kind with the streams opened,
    give the HTTP requests per move). Runs its own event loop (not from
    inside one)."""
    if game not in GAMES:
        raise ValueError(f"game is one of {', '.join(GAMES)}, not {game!r}")
    return asyncio.run(
        _measure(base_url, game, seats, tables, seconds, warmup, seed, window_ms, streams)
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="the service, e.g. http://127.0.0.1:8000")
    parser.add_argument("--game", choices=GAMES, default="sevens")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--window-ms", type=int, default=200, help="May I?'s window")
    parser.add_argument(
        "--streams", action="store_true", help="seats learn their turns from their seat streams"
    )
    args = parser.parse_args(argv)
    result = measure(
        args.url,
        args.game,
        args.seats,
        args.tables,
        args.seconds,
        warmup=args.warmup,
        seed=args.seed,
        window_ms=args.window_ms,
        streams=args.streams,
    )
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
