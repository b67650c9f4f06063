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
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp

from .load import Client

WAIT_SECONDS = 10.0
"""How long a seat waits for its view on its stream."""

View = dict[str, Any]


class SeatFeed:
    """One seat's stream: its ``event: seat`` frames, in order."""

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None
        self.views: asyncio.Queue[View | None] = asyncio.Queue()
        self.latest: View | None = None
        """The last view :meth:`until` took (a seat that must wait again,
        e.g. a May I? draw refused while the window is open, may want it)."""

    async def read(self, response: aiohttp.ClientResponse) -> None:
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
        """The latest or next view ``wanted`` accepts (earlier ones are
        passed by); ``None`` when the stream ends or the wait is too long."""
        if self.latest is not None and wanted(self.latest) and self.views.empty():
            return self.latest
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(WAIT_SECONDS):
                while (view := await self.views.get()) is not None:
                    self.latest = view
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
        self.feeds: dict[str, list[SeatFeed]] = {}

    async def follow(self, client: Any, table: str, tokens: list[str]) -> bool:
        """Open every seat's stream (False: one was refused, with a note);
        ``client`` a :class:`~benchmarks.load.Client` or what has its
        ``base`` and its recorder's ``notes`` and ``answered``."""
        feeds = []
        for seat, token in enumerate(tokens):
            headers = {"Authorization": f"Bearer {token}"}
            url = f"{client.base}{table}/seats/{seat}/stream"
            response = await self.session.get(url, headers=headers)
            if response.status != 200:
                client.recorder.notes[f"stream answered {response.status}"] += 1
                response.release()
                return False
            client.recorder.answered["stream"] += 1
            feed = SeatFeed()
            feed.task = asyncio.create_task(feed.read(response))
            self.tasks.append(feed.task)
            feeds.append(feed)
        self.feeds[table] = feeds
        return True

    async def leave(self, feeds: list[SeatFeed]) -> None:
        """Close the streams of ``feeds`` (a table left before the run ends)."""
        for feed in feeds:
            if feed.task is not None:
                feed.task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await feed.task
                self.tasks.remove(feed.task)

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.session.close()

    async def views(
        self,
        client: Client,
        table: str,
        tokens: list[str],
        seats: list[int],
        round_no: int,
        exchange: int,
    ) -> dict[int, View] | None:
        """Each seat of ``seats``' next view of ``round_no`` at ``exchange``
        (or its end) from its stream (:class:`benchmarks.exchange_load.SeatViews`
        reads them with GETs); ``None`` with a note when one is late."""
        feeds = self.feeds[table]
        found = await asyncio.gather(*(feeds[s].until(at(round_no, exchange)) for s in seats))
        if any(v is None for v in found):
            client.recorder.notes["no seat frame on the stream in time"] += 1
            return None
        return {s: v for s, v in zip(seats, found, strict=True) if v is not None}


async def frames(response: aiohttp.ClientResponse) -> AsyncIterator[tuple[str, str]]:
    """The stream's frames that carry data, as they arrive: (event name,
    ``"message"`` when unnamed; its one ``data`` line), as an EventSource
    dispatches them (the service sends one ``data`` line per frame)."""
    event, data = "message", ""
    async for raw in response.content:
        line = raw.decode().rstrip("\r\n")
        if line:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                event = value
            elif name == "data":
                data = value
            continue
        if data:
            yield event, data
        event, data = "message", ""
