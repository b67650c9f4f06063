"""One Redis subscription per process, fanned out to every open stream.

Every commit announces itself on its table's feed channel
(``referee:{<id>}:feed``, from the Lua scripts, with the table's event count;
``-1`` when the table was deleted, ``0`` when one of its seats became
connected: :mod:`service.streams.presence`). A :class:`Hub` holds one pattern
subscription to every feed (``PSUBSCRIBE referee:{*}:feed``) on one
connection, in one background thread (a greenlet under gevent's monkey
patching), and wakes the streams of this process that follow the table; a
stream then reads the log itself, so a notification carries no event.
Just before it, a commit (``commit.lua``, ``choose.lua``) of a table that
a stream holds a lease on (``service.storage.stream_leases``) publishes on
its table's page channel (``referee:{<id>}:page``, followed by a second pattern on the same
connection) the page its streams read after it: the JSON array ``[after,
reply]``, ``reply`` what ``TableStore.snapshot(after)`` reads in Redis.
For a table that streams of this process follow, the hub wakes them with
that page kept for the announcement (:meth:`Hub.page`), and lets the feed's
announcement of the same commit go by: a stream whose cursor is ``after``
reads no table after the commit. Another release's commit publishes no
page (its feed wakes the streams as before), and a release that knows no
page channel never follows it.
Whenever the subscription is confirmed (the first time, and each time it is
made anew: by the hub after an error, or by redis-py itself after a
reconnection inside its own retry, which raises nothing) every stream of
the process is woken to read the log, since commits may have gone by
unannounced; a notification lost otherwise delays a stream until its next
heartbeat, when it reads the log anyway.

On a Redis Cluster of 7.0 or newer the feeds are sharded channels
(:mod:`service.storage.feeds`), which have no pattern: the thread then
subscribes (``SSUBSCRIBE``) to the feed of each table a stream of this
process follows, on the connection to the table's shard, and unsubscribes
once the table's last stream here ends. A stream's first read waits for
its table's subscription (at most :data:`SUBSCRIBE_WAIT_SECONDS`).

The Hub knows no game and no HTTP; it survives Redis going away (it
reconnects with a growing pause, and streams meanwhile wake on their own
timeouts).
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import json
import logging
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import redis
from redis.exceptions import RedisClusterException

from ..storage import feeds
from ..storage.store import KEY_PREFIX

log = logging.getLogger(__name__)

PATTERN = f"{KEY_PREFIX}:{{*}}:feed"
"""The channels of every table's feed (braces are literal in Redis globs)."""

PAGE_PATTERN = f"{KEY_PREFIX}:{{*}}:page"
"""The channels of every table's published pages (``commit.lua``)."""

PATTERNS = (PATTERN, PAGE_PATTERN)
"""The patterns the subscription holds: it is in place once Redis confirms
the last (its count of patterns then is theirs)."""

PAGE_KEY = "page"
"""What a published page is kept under among a table's shared reads,
``(PAGE_KEY, after)``: :meth:`Hub.page`."""

_T = TypeVar("_T")

_MISSING = object()

COALESCE_SECONDS = 0.004
"""After a table's streams were woken, further commits of that table within
this long wake them once, at its end (a burst of passes, every seat of an
exchange at once, is read once rather than once per pass); a commit after a
quiet spell wakes them at once."""

RECONNECT_SECONDS = (0.1, 0.25, 0.5)
"""Pauses before each try to subscribe again after Redis went away (the
last repeats): the streams catch up within a second of Redis answering
again (a new primary's log may have been rolled back), for a connection
tried twice a second while it is down."""


SHARD_POLL_SECONDS = 0.05
"""On sharded feeds, how long the thread waits for a message before it
looks for tables to subscribe to: what a new table's stream may wait."""

SHARD_ERRORS_BEFORE_RESTART = 40
"""On sharded feeds, failed reads in a row (each followed by a pause of
:data:`SHARD_POLL_SECONDS`) after which the subscription starts anew."""

CONFIRM_SECONDS = 5.0
"""On sharded feeds, a subscription not confirmed within this long is made again."""

RETRY_SECONDS_MAX = 30.0
"""On sharded feeds, the longest pause before a failed subscription is tried again."""

SUBSCRIBE_WAIT_SECONDS = 1.0
"""On sharded feeds, the longest a stream waits for its table's
subscription before its first read (past it, the stream goes on; its
heartbeat reads catch up with what the feed did not announce)."""


def feed_channel(table_id: str) -> str:
    """The channel a table's commits are announced on (the Lua scripts'
    ``KEYS[1]`` with ``:feed`` for ``:table``)."""
    return f"{KEY_PREFIX}:{{{table_id}}}:feed"


def table_of(channel: str, tail: str = "}:feed") -> str | None:
    """The table id in a feed channel's name (``tail`` ``"}:page"``: a page
    channel's), ``None`` for another name."""
    head = f"{KEY_PREFIX}:{{"
    if channel.startswith(head) and channel.endswith(tail):
        return channel[len(head) : -len(tail)]
    return None


DELETED = -1
"""The count a table's feed announces when the table was deleted."""

PRESENCE = 0
"""The count announced when a seat became connected (``presence.lua``; no
commit announces 0: a table's creation writes its first event). A
subscription made anew wakes every stream with it too."""

CLOSING = -2
"""What :func:`close_streams` tells each stream: the process is stopping."""

_HUBS: weakref.WeakSet[Hub] = weakref.WeakSet()


def close_streams() -> None:
    """End every stream of this process (a worker stopping on SIGTERM): each
    tells its client to reconnect, which reaches another instance."""
    for hub in list(_HUBS):
        hub.close()


class Waiter:
    """What one stream waits on: set when its table's feed announces a
    commit (``gone`` when the table was deleted, ``closing`` when the
    process is stopping), or when its deadline comes.

    The deadlines of a hub's waiters are kept by the hub's timer thread
    (:meth:`Hub._schedule`): a wait makes no timer of its own (under gevent
    each timed wait made one, and a busy table's streams wait after every
    commit: a sixth of what one more stream cost a move)."""

    __slots__ = ("_event", "gone", "closing", "presence", "notified", "deadline", "due", "hub")

    def __init__(self, hub: Hub | None = None) -> None:
        self._event = threading.Event()
        self.gone = False
        self.closing = False
        self.presence = False
        """Set by an announcement that may be a seat's connection (count
        :data:`PRESENCE`); the stream clears it when it reads presence."""
        self.notified = False
        self.deadline = 0.0
        """When the current wait ends (``time.monotonic``)."""
        self.due: float | None = None
        """The deadline the hub's timer holds for this waiter (None: none)."""
        self.hub = hub

    def notify(self, count: int) -> None:
        if count == DELETED:
            self.gone = True
        elif count == CLOSING:
            self.closing = True
        elif count == PRESENCE:
            self.presence = True
        self.notified = True
        self._event.set()

    def expire(self) -> None:
        """The wait's deadline came (the hub's timer)."""
        self._event.set()

    def wait(self, timeout: float) -> bool:
        """Whether a commit was announced within ``timeout`` seconds (or
        since the last wait); clears the announcement."""
        hub = self.hub
        if hub is None or timeout <= 0 or self._event.is_set() or not hub.timing:
            self._event.wait(timeout)
        else:
            self.deadline = time.monotonic() + timeout
            hub._schedule(self)
            self._event.wait()
        self._event.clear()
        woken, self.notified = self.notified, False
        return woken

    def wait_until(self, deadline: float, now: float) -> bool:
        """:meth:`wait` until ``deadline`` (``time.monotonic``; ``now`` is
        the time now): what a stream waits with after each wake, its path
        kept short (one more stream on a busy table costs this)."""
        hub = self.hub
        event = self._event
        if deadline <= now or hub is None or event.is_set() or not hub.timing:
            event.wait(deadline - now if deadline > now else 0.0)
        else:
            self.deadline = deadline
            due = self.due
            if due is None or due > deadline:
                hub._schedule(self)
            event.wait()
        event.clear()
        woken, self.notified = self.notified, False
        return woken


class _Shared:
    """The reads of one table made since one announced commit (:meth:`Hub.shared`)."""

    __slots__ = ("generation", "values", "locks")

    def __init__(self, generation: int) -> None:
        self.generation = generation
        self.values: dict[Any, Any] = {}
        self.locks: dict[Any, threading.Lock] = {}


class Hub:
    """The process's subscription to every table's feed; see the module
    docstring. ``client`` is a redis-py client (standalone or cluster)."""

    def __init__(
        self,
        client: Any,
        coalesce: float = COALESCE_SECONDS,
        on_render: Callable[[str], None] | None = None,
    ) -> None:
        self.client = client
        self.coalesce = coalesce
        self.renders: dict[str, int] = {}
        """Frames rendered in this process, by audience (:meth:`rendered`)."""
        self._on_render = on_render
        self._woken_at: dict[str, float] = {}
        self._held: dict[str, int] = {}
        self._held_pages: dict[str, tuple[int, Any]] = {}
        """Per held table, the newest commit's published page (:meth:`announce`)."""
        self._lock = threading.Lock()
        self._waiters: dict[str, set[Waiter]] = {}
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()
        self.subscribed = threading.Event()
        """Set while the subscription is in place (tests wait for it)."""
        self.closing = False
        self._generation: dict[str, int] = {}
        self._shared: dict[str, _Shared] = {}
        self._paged: dict[str, int] = {}
        """Per table, the count of the commit whose page woke its streams,
        until that commit's feed announcement (which then goes by) comes."""
        self._places = 0
        self._sharded = feeds.sharded(client)
        self._confirmed: dict[str, threading.Event] = {}
        """Sharded feeds: per followed table, set once its subscription holds."""
        self._followed_changed = threading.Event()
        self._failures = 0
        self._timers: list[tuple[float, int, Waiter]] = []
        """The waiters' deadlines, a heap (:meth:`_schedule`)."""
        self._timer_order = itertools.count()
        self._timer_changed = threading.Event()
        self._ticker: threading.Thread | None = None
        self._ticking = False
        _HUBS.add(self)

    def reserve(self, limit: int) -> Callable[[], None] | None:
        """A place for one more stream of this process, taken at once (so
        that requests arriving together cannot all pass the check), or
        ``None`` when ``limit`` places are taken. Call the function it
        returns when the stream ends; a second call does nothing."""
        with self._lock:
            if self._places >= limit:
                return None
            self._places += 1
        given = [True]

        def release() -> None:
            with self._lock:
                if given[0]:
                    given[0] = False
                    self._places -= 1

        return release

    @property
    def streams(self) -> int:
        """How many streams of this process follow a table now."""
        with self._lock:
            return sum(len(w) for w in self._waiters.values())

    @contextlib.contextmanager
    def follow(self, table_id: str) -> Iterator[Waiter]:
        """A :class:`Waiter` woken by the table's commits while the block runs.
        On sharded feeds the block starts once the table's subscription holds
        (at most :data:`SUBSCRIBE_WAIT_SECONDS`; past it, the subscription's
        confirmation wakes the waiter when it comes)."""
        self._start()
        waiter = Waiter(self)
        waiter.closing = self.closing
        with self._lock:
            self._waiters.setdefault(table_id, set()).add(waiter)
            confirmed = None
            if self._sharded:
                confirmed = self._confirmed.setdefault(table_id, threading.Event())
        try:
            if confirmed is not None and not confirmed.is_set() and not self.closing:
                self._followed_changed.set()
                confirmed.wait(SUBSCRIBE_WAIT_SECONDS)
            yield waiter
        finally:
            with self._lock:
                followers = self._waiters.get(table_id)
                if followers is not None:
                    followers.discard(waiter)
                    if not followers:
                        del self._waiters[table_id]
                        self._generation.pop(table_id, None)
                        self._paged.pop(table_id, None)
                        self._shared.pop(table_id, None)
                        self._confirmed.pop(table_id, None)
                        self._followed_changed.set()

    def peek(self, table_id: str, key: Any) -> Any:
        """What :meth:`shared` holds under ``key`` since the table's last
        announced commit, ``None`` when nothing (no lock: a dict's read is
        atomic)."""
        shared = self._shared.get(table_id)
        if shared is not None and shared.generation == self._generation.get(table_id, 0):
            return shared.values.get(key)
        return None

    def shared(self, table_id: str, key: Any, read: Callable[[], _T]) -> _T:
        """``read()``, once for all of this process's streams of the table
        that ask for the same ``key`` since its last announced commit: the
        first caller reads (the others wait for it), the rest take its
        answer, which is at least as new as that commit; the next commit's
        announcement makes every key read again. An exception is not kept.
        (Seven seat streams of one table read it once per commit, not seven
        times.)"""
        # Read without a lock first: the streams after the first find the
        # value there (dict reads are atomic), and take no lock at all.
        shared = self._shared.get(table_id)
        if shared is not None and shared.generation == self._generation.get(table_id, 0):
            found = shared.values.get(key, _MISSING)
            if found is not _MISSING:
                return found  # type: ignore[no-any-return]
        with self._lock:
            generation = self._generation.get(table_id, 0)
            shared = self._shared.get(table_id)
            if shared is None or shared.generation != generation:
                shared = self._shared[table_id] = _Shared(generation)
            lock = shared.locks.get(key)
            if lock is None:  # (setdefault would make a lock on every call)
                lock = shared.locks[key] = threading.Lock()
        with lock:
            if key in shared.values:
                return shared.values[key]  # type: ignore[no-any-return]
            value = read()
            shared.values[key] = value
            return value

    def page(self, table_id: str, after: int) -> Any:
        """The page a commit published for the streams of ``table_id`` at
        cursor ``after`` (``table_page``'s reply, as JSON decodes it), when
        it woke them and no commit was announced since; else ``None``."""
        return self.peek(table_id, (PAGE_KEY, after))

    def rendered(self, audience: str) -> None:
        """Count one rendering of a read's frames for ``audience`` (the
        public event frames, or one seat's view), then tell ``on_render``
        (the service's metric): once per announced commit and audience in
        a process, however many streams write them."""
        self.renders[audience] = self.renders.get(audience, 0) + 1
        if self._on_render is not None:
            self._on_render(audience)

    def publish(self, table_id: str, count: int) -> None:
        """Wake this process's streams of ``table_id`` now (a commit's
        announcement, without :data:`COALESCE_SECONDS`)."""
        self._deliver(feed_channel(table_id), count)

    def announce(self, channel: str, count: int, now: float, page: Any = None) -> None:
        """A commit announced on ``channel`` at ``now`` (``time.monotonic``):
        its table's streams are woken now, or, when they were woken less
        than ``coalesce`` seconds ago, held until then (:meth:`flush`) with
        the commits that follow meanwhile. A deletion wakes them at once.
        ``page``: the commit's published page ``(after, reply)``, kept for
        the streams it wakes (:meth:`page`): held, the newest commit's,
        unless a commit without one came after it."""
        table_id = table_of(channel)
        if table_id is None or table_id not in self._waiters:
            return  # no stream of this process follows it
        woken = self._woken_at.get(table_id)
        if count < 0 or woken is None or now - woken >= self.coalesce:
            self._held.pop(table_id, None)
            self._held_pages.pop(table_id, None)
            self._woken_at[table_id] = now
            self._deliver(channel, count, page)
        else:
            # A seat's connection held with commits is told as one (a
            # presence wake reads the log too): a commit after it must not
            # hide it until the next heartbeat.
            held = self._held.get(table_id)
            self._held[table_id] = PRESENCE if PRESENCE in (count, held) else count
            if page is not None:
                self._held_pages[table_id] = page
            elif count != PRESENCE:  # a commit whose page is not known: read
                self._held_pages.pop(table_id, None)

    def flush(self, now: float) -> float | None:
        """Wake the streams of the tables held whose time has come; the
        seconds until the next held one's (``None``: none held)."""
        nearest: float | None = None
        for table_id, count in list(self._held.items()):
            due = self._woken_at[table_id] + self.coalesce
            if due <= now:
                del self._held[table_id]
                self._woken_at[table_id] = now
                self._deliver(feed_channel(table_id), count, self._held_pages.pop(table_id, None))
            elif nearest is None or due - now < nearest:
                nearest = due - now
        if len(self._woken_at) > len(self._held) + 1024:  # forget quiet tables
            for table_id, at in list(self._woken_at.items()):
                if now - at >= self.coalesce and table_id not in self._held:
                    del self._woken_at[table_id]
        return nearest

    def stop(self) -> None:
        self._stopped.set()
        self._timer_changed.set()
        with self._lock:  # their deadlines are their own again: wake them to time themselves
            waiting = [w for ws in self._waiters.values() for w in ws]
        for waiter in waiting:
            waiter.expire()

    def close(self) -> None:
        """End every stream that follows a table here, now and from now on."""
        self.closing = True
        self._wake_all(CLOSING)

    def _start(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="referee-hub", daemon=True)
                self._thread.start()
            if self._ticker is None or not self._ticker.is_alive():
                self._ticker = threading.Thread(
                    target=self._tick, name="referee-hub-timer", daemon=True
                )
                self._ticker.start()

    @property
    def timing(self) -> bool:
        """Whether the timer thread keeps the waiters' deadlines (else a
        wait times itself): a flag the thread holds while it runs (asked on
        every wait, so no look at the thread itself)."""
        return self._ticking and not self._stopped.is_set()

    def _schedule(self, waiter: Waiter) -> None:
        """Wake ``waiter`` at its ``deadline``, unless the timer holds an
        earlier one for it already (then, when that one comes, the timer
        looks at the waiter's deadline again): a stream woken by commits,
        whose deadline moves later each time, costs no heap entry per wait."""
        until = waiter.deadline
        due = waiter.due
        if due is not None and due <= until:
            # The timer holds an earlier deadline, which looks at this one when
            # it comes (a look without the lock: at worst, a wake the stream
            # finds early and waits again after).
            return
        with self._lock:
            if waiter.due is not None and waiter.due <= until:
                return
            waiter.due = until
            heapq.heappush(self._timers, (until, next(self._timer_order), waiter))
            first = self._timers[0][2] is waiter
        if first:
            self._timer_changed.set()

    def _tick(self) -> None:
        """The timer thread: expire the waiters whose deadline came."""
        self._ticking = True
        try:
            self._tick_until_stopped()
        finally:
            self._ticking = False
            with self._lock:  # their deadlines are their own again
                waiting = [w for ws in self._waiters.values() for w in ws]
            for waiter in waiting:
                waiter.expire()

    def _tick_until_stopped(self) -> None:
        while not self._stopped.is_set():
            self._timer_changed.clear()  # before the look: a deadline set after it wakes us
            try:
                nearest = self._expire_due()
            except Exception:  # never leave the streams without their deadlines
                log.exception("stream hub's timer")
                nearest = 0.1
            self._timer_changed.wait(nearest)

    def _expire_due(self) -> float | None:
        """Expire the waiters whose deadline came; seconds until the next one."""
        now = time.monotonic()
        expired = []
        with self._lock:
            while self._timers and self._timers[0][0] <= now:
                until, _, waiter = heapq.heappop(self._timers)
                if waiter.due != until:
                    continue  # stale: the waiter's own entry is another one
                if waiter.deadline <= now:
                    waiter.due = None
                    expired.append(waiter)
                else:  # its wait moved later since: look again then
                    waiter.due = waiter.deadline
                    heapq.heappush(self._timers, (waiter.deadline, next(self._timer_order), waiter))
            nearest = self._timers[0][0] - now if self._timers else None
        for waiter in expired:
            waiter.expire()
        return nearest

    def announce_page(self, channel: str, data: bytes | str, now: float) -> None:
        """A commit's page published on the page ``channel`` (``[after,
        reply]`` as JSON): :meth:`announce` with it, for a table that
        streams of this process follow (nothing is decoded for another);
        the feed's announcement of the same commit, which follows, then
        goes by (:meth:`announce_feed`)."""
        table_id = table_of(channel, "}:page")
        if table_id is None or table_id not in self._waiters:
            return
        after, reply = json.loads(data)
        count = int(reply[0])
        self._paged[table_id] = count
        self.announce(feed_channel(table_id), count, now, (int(after), reply))

    def announce_feed(self, channel: str, count: int, now: float) -> None:
        """A feed's announcement: :meth:`announce`, unless the commit's
        page announced it (:meth:`announce_page`)."""
        table_id = table_of(channel)
        if table_id is not None and self._paged.pop(table_id, None) == count:
            return
        self.announce(channel, count, now)

    def _deliver(self, channel: str, count: int, page: Any = None) -> None:
        table_id = table_of(channel)
        if table_id is None:
            return
        with self._lock:
            followers = list(self._waiters.get(table_id, ()))
            if followers:
                generation = self._generation[table_id] = self._generation.get(table_id, 0) + 1
                if page is not None:
                    shared = self._shared[table_id] = _Shared(generation)
                    shared.values[(PAGE_KEY, page[0])] = page[1]
        for waiter in followers:
            waiter.notify(count)

    def _run(self) -> None:
        self._failures = 0
        while not self._stopped.is_set():
            pubsub = None
            try:
                if self._sharded:
                    pubsub = self.client.pubsub()
                    self.subscribed.set()
                    self._follow_shards(pubsub)
                    continue
                pubsub = self.client.pubsub()
                self._paged.clear()
                pubsub.psubscribe(*PATTERNS)
                wait: float | None = None
                while not self._stopped.is_set():
                    message = pubsub.get_message(timeout=1.0 if wait is None else wait)
                    kind = None if message is None else message.get("type")
                    if kind == "pmessage":
                        assert message is not None
                        channel = message["channel"]
                        name = channel.decode() if isinstance(channel, bytes) else str(channel)
                        if name.endswith(":page"):
                            self.announce_page(name, message["data"], time.monotonic())
                        else:
                            self.announce_feed(name, int(message["data"]), time.monotonic())
                    elif kind == "psubscribe" and message["data"] == len(PATTERNS):
                        # The subscription holds (again): the first, or one
                        # redis-py made anew by itself after a reconnection
                        # (its on_connect), which the hub is told of by
                        # nothing else. A commit may have gone by meanwhile:
                        # every stream reads the log (and finds a log that
                        # was rolled back, a new primary's).
                        self._failures = 0
                        self._wake_all()
                        self.subscribed.set()  # after the wake: tests wait for it
                    wait = self.flush(time.monotonic())
            except (redis.RedisError, RedisClusterException, OSError, ValueError) as error:
                self.subscribed.clear()
                pause = self._pause()
                log.warning("stream hub lost its subscription (%s); again in %.1f s", error, pause)
                self._stopped.wait(pause)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(redis.RedisError, OSError):
                        pubsub.close()

    def _pause(self) -> float:
        """The pause before the next try after a failure (growing; a success resets it)."""
        pause = RECONNECT_SECONDS[min(self._failures, len(RECONNECT_SECONDS) - 1)]
        self._failures += 1
        return pause

    def _follow_shards(self, pubsub: Any) -> None:
        """The thread's loop on sharded feeds (``pubsub``: redis-py's
        ``ClusterPubSub``, used by this thread alone; :class:`_Shards`).

        A table's subscription holds once its ``ssubscribe`` confirmation
        arrives: then :meth:`follow` is told, and the table's streams are
        woken, since a commit may have gone by unannounced (a stream whose
        wait in :meth:`follow` ran out, a subscription made again after a
        reconnection, a node's failure or a slot's move: its shard then says
        ``sunsubscribe`` by itself)."""
        shards = _Shards(pubsub)
        retry_at: float | None = None
        wait: float | None = None
        errors = 0
        self._followed_changed.set()
        while not self._stopped.is_set():
            now = time.monotonic()
            if self._followed_changed.is_set() or (retry_at is not None and now >= retry_at):
                self._followed_changed.clear()
                with self._lock:
                    wanted = set(self._waiters)
                    events = dict(self._confirmed)
                retry_at = shards.follow_only(wanted, now)
                for table_id in shards.confirmed & wanted:  # a stream that came back at once
                    if table_id in events:
                        events[table_id].set()
            slice_ = SHARD_POLL_SECONDS if wait is None else min(wait, SHARD_POLL_SECONDS)
            if not shards.live:
                self._followed_changed.wait(slice_ if retry_at is not None else (wait or 1.0))
                message = None
            else:
                try:
                    message = pubsub.get_sharded_message(timeout=slice_)
                    errors = 0
                except _SHARD_FAILURES:
                    # Every node read in that pass failed; redis-py rests them
                    # a while and reads the others meanwhile. Only a failure
                    # that lasts makes the subscription start anew.
                    errors += 1
                    if errors > SHARD_ERRORS_BEFORE_RESTART:
                        raise
                    self._stopped.wait(SHARD_POLL_SECONDS)
                    continue
            if message is not None:
                kind = str(message.get("type"))
                channel = message["channel"]
                name = channel.decode() if isinstance(channel, bytes) else str(channel)
                about = table_of(name)
                if kind == "smessage":
                    self.announce(name, int(message["data"]), time.monotonic())
                elif about is not None and kind == "ssubscribe" and shards.held(about):
                    self._failures = 0
                    with self._lock:
                        event = self._confirmed.get(about)
                    if event is not None:
                        event.set()
                    self._deliver(name, PRESENCE)
                elif about is not None and kind == "sunsubscribe" and shards.lost(about):
                    self._followed_changed.set()  # not asked for: subscribe again
            wait = self.flush(time.monotonic())

    def _wake_all(self, count: int = PRESENCE) -> None:
        with self._lock:
            followers = [w for ws in self._waiters.values() for w in ws]
            # As an announcement does: a commit may have gone by unannounced (the
            # subscription was down), and no read shared before it may stand for it.
            for table_id in self._waiters:
                self._generation[table_id] = self._generation.get(table_id, 0) + 1
        for waiter in followers:
            waiter.notify(count)


_SHARD_FAILURES = (redis.RedisError, RedisClusterException, OSError)
"""What a sharded subscription's calls raise when a node fails (redis-py's
cluster errors are not all ``RedisError``)."""


class _Shards:
    """The hub thread's sharded subscriptions (see :meth:`Hub._follow_shards`):
    which tables' feeds are subscribed (``live``), which of those Redis
    confirmed, and when to try again those that failed. Every set and dict
    here holds only tables that streams of this process follow."""

    def __init__(self, pubsub: Any) -> None:
        self.pubsub = pubsub
        self.live: set[str] = set()
        self.confirmed: set[str] = set()
        self.sent: dict[str, float] = {}
        """Subscribed, not confirmed yet: since when."""
        self.retry: dict[str, tuple[float, int]] = {}
        """Failed: not before when, and how many times in a row."""
        self.strays_at = 0.0
        """When to look for strays next (:meth:`_leave_strays`)."""

    def follow_only(self, wanted: set[str], now: float) -> float | None:
        """Subscribe to the feeds of ``wanted`` (those not waiting for a
        retry), table by table, so that a node that is down holds up only its
        own; leave the others. Returns when to look again (a retry, or a
        subscription unconfirmed for :data:`CONFIRM_SECONDS`), or ``None``."""
        for table_id, sent in list(self.sent.items()):
            if now - sent >= CONFIRM_SECONDS:  # never confirmed: make it again
                self.drop(table_id)
        for table_id in [t for t in self.retry if t not in wanted]:
            del self.retry[table_id]
        for table_id in wanted - self.live:
            not_before, failures = self.retry.get(table_id, (0.0, 0))
            if now < not_before:
                continue
            try:
                self.pubsub.ssubscribe(feed_channel(table_id))
            except _SHARD_FAILURES as error:
                pause = min(RETRY_SECONDS_MAX, RECONNECT_SECONDS[0] * 2**failures)
                self.retry[table_id] = (now + pause, failures + 1)
                log.warning("stream hub could not follow table %s (%s)", table_id, error)
            else:
                self.live.add(table_id)
                self.sent[table_id] = now
                self.retry.pop(table_id, None)
        for table_id in self.live - wanted:
            self.drop(table_id)
            with contextlib.suppress(*_SHARD_FAILURES):  # its node is down: see below
                self.pubsub.sunsubscribe(feed_channel(table_id))
        if now >= self.strays_at:  # seldom: a node that hangs holds each call up
            self.strays_at = now + RETRY_SECONDS_MAX
            self._leave_strays(wanted)
        deadlines = [at for at, _ in self.retry.values()]
        deadlines += [sent + CONFIRM_SECONDS for sent in self.sent.values()]
        return min(deadlines) if deadlines else None

    def _leave_strays(self, wanted: set[str]) -> None:
        """Leave the feeds redis-py still holds that no stream here follows:
        left while their node was down, redis-py's reconnection subscribed
        them again."""
        leaving = set(self.pubsub.pending_unsubscribe_shard_channels)
        for channel in list(self.pubsub.shard_channels):
            if channel in leaving:
                continue
            name = channel.decode() if isinstance(channel, bytes) else str(channel)
            table_id = table_of(name)
            if table_id is not None and table_id not in wanted:
                with contextlib.suppress(*_SHARD_FAILURES):
                    self.pubsub.sunsubscribe(name)

    def held(self, table_id: str) -> bool:
        """Note a table's subscription confirmed; whether it is one we keep."""
        if table_id not in self.live:
            return False
        self.sent.pop(table_id, None)
        self.confirmed.add(table_id)
        return True

    def lost(self, table_id: str) -> bool:
        """Note that the shard ended a table's subscription; whether we had
        not asked for it (then it is to be made again)."""
        if table_id not in self.live:
            return False
        self.drop(table_id)
        return True

    def drop(self, table_id: str) -> None:
        self.live.discard(table_id)
        self.confirmed.discard(table_id)
        self.sent.pop(table_id, None)
