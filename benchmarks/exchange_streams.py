"""Issue 13's exchanges (:mod:`benchmarks.exchange_load`) with every seat
following its own seat stream (``GET …/seats/{seat}/stream``, the seat's
token in ``Authorization``) instead of reading its seat view: after a deal
and after each exchange, a seat learns its new hand from the stream's next
``event: seat`` frame of that round and exchange (the resolving seat from
its pass answer, as before). The only requests left are the passes, the
deals and one stream per seat per table::

    python -m benchmarks.exchange_load http://127.0.0.1:8001 --seats 7 --streams

A seat that waits more than :data:`WAIT_SECONDS` for its frame stops its
table with a note (never silent).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

import aiohttp

from .load import Client, pass_at_once
from .players import after_exchange, choose_cards

WAIT_SECONDS = 10.0
"""How long a seat waits for its view on its stream."""

View = dict[str, Any]


class SeatFeed:
    """One seat's stream: its ``event: seat`` frames, in order."""

    def __init__(self) -> None:
        self.views: asyncio.Queue[View | None] = asyncio.Queue()

    async def read(self, response: aiohttp.ClientResponse) -> None:
        from .streams import frames

        try:
            async for event, data in frames(response):
                if event == "seat":
                    self.views.put_nowait(json.loads(data))
        except aiohttp.ClientError:
            pass  # closed at the end of the run
        finally:
            self.views.put_nowait(None)
            response.close()

    async def until(self, wanted: Callable[[View], bool]) -> View | None:
        """The next view ``wanted`` accepts (earlier ones are passed by);
        ``None`` when the stream ends or the wait is too long."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(WAIT_SECONDS):
                while (view := await self.views.get()) is not None:
                    if wanted(view):
                        return view
        return None


def at(round_no: int, exchange: int) -> Callable[[View], bool]:
    """A view of ``round_no`` once ``exchange`` is open and not yet chosen
    in, or once the round is over."""

    def wanted(view: View) -> bool:
        if view.get("round") != round_no:
            return False
        if view.get("round_status") != "passing":
            return True
        return view.get("exchange") == exchange and view.get("pending") is None

    return wanted


class Streamed:
    """The seats' streams of a run: their own session (a stream holds its
    connection for good, so it must not take one of the load's), read in
    background tasks that :meth:`close` ends."""

    def __init__(self, streams: int) -> None:
        connector = aiohttp.TCPConnector(limit=streams + 10, ttl_dns_cache=None)
        timeout = aiohttp.ClientTimeout(total=None, connect=30, sock_read=None)
        self.session = aiohttp.ClientSession(connector=connector, timeout=timeout)
        self.tasks: list[asyncio.Task[None]] = []

    async def follow(self, client: Client, table: str, tokens: list[str]) -> list[SeatFeed] | None:
        """Open every seat's stream; their feeds (``None``: one was refused,
        with a note)."""
        feeds = []
        for seat, token in enumerate(tokens):
            headers = {"Authorization": f"Bearer {token}"}
            url = f"{client.base}{table}/seats/{seat}/stream"
            response = await self.session.get(url, headers=headers)
            if response.status != 200:
                client.recorder.notes[f"stream answered {response.status}"] += 1
                response.release()
                return None
            client.recorder.answered["stream"] += 1
            feed = SeatFeed()
            self.tasks.append(asyncio.create_task(feed.read(response)))
            feeds.append(feed)
        return feeds

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.session.close()

    async def play_table(self, client: Client, figures: Any, seats: int) -> None:
        """:func:`benchmarks.exchange_load.play_table`, hands from the streams."""
        await play_table(self, client, figures, seats)


async def hands_at(
    client: Client, feeds: list[SeatFeed], seats: list[int], round_no: int, exchange: int
) -> dict[int, View] | None:
    views = await asyncio.gather(*(feeds[s].until(at(round_no, exchange)) for s in seats))
    if any(v is None for v in views):
        client.recorder.notes["no seat frame on the stream in time"] += 1
        return None
    return {s: v for s, v in zip(seats, views, strict=True) if v is not None}


async def deal(
    client: Client, table: str, host: str, feeds: list[SeatFeed]
) -> tuple[int, str, list[list[str]]] | None:
    """Deal the next round (again while a dealt hand already wins); every
    seat learns its hand on its stream: (round, direction, hands), or None."""
    rec = client.recorder
    for _ in range(5):
        status, dealt = await client.call("deal", "POST", f"{table}/rounds", host)
        if status != 201:
            rec.notes[f"deal answered {status}"] += 1
            return None
        rnd = dealt["table"]["round"]
        if rnd["status"] == "passing":
            views = await hands_at(client, feeds, list(range(len(feeds))), dealt["round"], 1)
            if views is None:
                return None
            hands = [list(views[s]["hand"]) for s in range(len(feeds))]
            return dealt["round"], rnd["direction"], hands
        rec.notes["rounds over at the deal"] += 1
    return None


async def play_table(streamed: Streamed, client: Client, figures: Any, seats: int) -> None:
    """Create a table, open its seats' streams and play exchanges until the
    window ends."""
    from .exchange_load import table_body

    rec = client.recorder
    status, created = await client.call("create", "POST", "/v1/tables", None, table_body(seats))
    if status != 201:
        rec.notes[f"create answered {status}"] += 1
        return
    table = f"/v1/tables/{created['table_id']}"
    host = created["host_token"]
    tokens = [s["token"] for s in created["seat_tokens"]]
    feeds = await streamed.follow(client, table, tokens)
    if feeds is None:
        return
    dealt = await deal(client, table, host, feeds)
    while dealt is not None and not rec.over():
        number, direction, hands = dealt
        exchange = 1
        while not rec.over():
            passed = [choose_cards(h, 1) for h in hands]
            sent = time.perf_counter()
            answers = await pass_at_once(client, table, number, exchange, tokens, passed, sent)
            if any(status != 200 for status, _ in answers):
                rec.notes["pass refused: table abandoned"] += 1
                return
            resolved = [(s, a) for s, (_, a) in enumerate(answers) if a["resolved"]]
            if len(resolved) != 1 or resolved[0][1]["exchange"] != exchange:
                rec.notes["exchange did not resolve once"] += 1
                return
            resolver, answer = resolved[0]
            figures.known(sent)
            others = [s for s in range(seats) if s != resolver]
            views = await hands_at(client, feeds, others, number, exchange + 1)
            if views is None:
                return
            for _ in others:
                figures.known(sent)
            expected = after_exchange(hands, passed, direction)
            hands = [
                list(views[s]["hand"]) if s in views else list(answer["hand"]) for s in range(seats)
            ]
            if [sorted(h) for h in hands] != [sorted(h) for h in expected]:
                rec.notes["hand bookkeeping differs from the referee"] += 1
                return
            rec.notes["exchanges"] += 1
            if answer["round_status"] != "passing":
                rec.notes[f"rounds {answer['round_status']}"] += 1
                break
            exchange += 1
        else:
            break
        dealt = await deal(client, table, host, feeds)
