"""The worker process: watch the tables' feeds, sweep every table at start
and after a lost subscription, schedule each deadline as a delayed job, and
run the jobs (dramatiq's worker threads)."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import dramatiq
import redis

from .. import clock
from ..config import Settings
from ..games import codec
from ..storage.client import is_cluster_url
from ..storage.embedded import ensure_embedded_redis
from ..storage.store import KEY_PREFIX, Contended, TableNotFound, TableStore, sent_key
from ..streams.hub import table_of
from .jobs import Jobs, make_broker
from .moves import WorkerChange, deadline_move, settle

log = logging.getLogger("referee.worker")

PATTERN = f"{KEY_PREFIX}:*:feed"
SENT_KEPT = 100_000
"""Deadlines this process remembers having scheduled (not sent twice)."""
MARK_AFTER_MS = 5_000
"""How long a deadline's sent mark (:func:`sent_key`) outlives the deadline."""
HORIZON_MS = 60_000
"""How far ahead a deadline's job is sent. A later deadline gets a table job
at the horizon instead (at most one per table and minute of each worker),
which looks again: a step that ends long before its deadline (a day's clock,
moves made in seconds) leaves no job held for a day, and no sent mark."""
HEALTH_SECONDS = 2.0


class Worker:
    """One ``referee worker`` process on ``settings``' Redis."""

    def __init__(self, settings: Settings) -> None:
        from .. import redis_client

        self.settings = settings
        self.client = redis_client(settings)
        self.store = TableStore(
            self.client,
            codec,
            settings.table_ttl_seconds,
            turn_wait_seconds=settings.redis_timeout_seconds,
            events_kept=settings.events_kept,
            rounds_kept=settings.rounds_kept,
        )
        url = settings.jobs_redis_url or settings.redis_url
        if not url:
            url, _ = ensure_embedded_redis(settings.data_dir)
        if is_cluster_url(url):
            raise SystemExit(
                "referee worker: the job broker needs a Redis that is not a cluster: "
                "set JOBS_REDIS_URL"
            )
        self.broker = make_broker(url)
        self.jobs = Jobs(self.broker, self.on_deadline, self.on_table)
        self._sent: OrderedDict[tuple[Any, ...], None] = OrderedDict()
        self._sent_lock = threading.Lock()
        self._stopped = threading.Event()
        self._pool = ThreadPoolExecutor(max(2, settings.worker_threads))
        self._queued: set[str] = set()
        self._queued_lock = threading.Lock()
        self.subscribed = threading.Event()

    # Jobs ---------------------------------------------------------------

    def on_deadline(self, table_id: str, key: str, seat: int) -> None:
        """A deadline's job: make the seat's move if the deadline's step is
        still the table's, the seat still due and Redis's clock past it;
        a deadline not come yet is sent again for its time."""
        later: list[int | None] = [None]

        def move(loaded: Any) -> WorkerChange:
            later[0] = None
            found = deadline_move(loaded, key, seat)
            if isinstance(found, WorkerChange):
                return found
            if isinstance(found, int):
                later[0] = found - loaded.now_ms
            return WorkerChange(loaded.table)  # nothing to write

        moved = [False]

        def move_once(loaded: Any) -> WorkerChange:
            change = move(loaded)
            moved[0] = change.table is not loaded.table or bool(change.events or change.choice)
            return change

        try:
            self.store.apply(table_id, move_once)
        except TableNotFound:
            return
        if later[0] is not None:
            self.jobs.at(self.jobs.deadline, later[0], table_id, key, seat)
            return
        if not moved[0]:
            # A move's commit reaches every worker's feed, which schedules
            # the table; with nothing committed, look again here.
            self.schedule(table_id)

    def on_table(self, table_id: str) -> None:
        """A table's job: schedule it (what falls due by the clock)."""
        self.schedule(table_id)

    # Scheduling ---------------------------------------------------------

    def schedule(self, table_id: str, force: bool = False) -> None:
        """Store what is due on the table and nobody stored, open its step's
        clock when no commit did, and send a job per deadline (once of all
        the workers, by a mark in Redis, unless ``force``: a sweep sends
        again, since a job may have been lost with a jobs Redis) and one for
        the instant the table next falls due."""
        try:
            loaded = self.store.load(table_id)
            if loaded.due is not None or clock.pending(loaded.table, loaded.control):
                self.store.apply(table_id, settle)
                loaded = self.store.load(table_id)
        except TableNotFound:
            return
        except Contended:
            self.jobs.at(self.jobs.table, 50, table_id)
            return
        key, found = clock.deadlines(loaded.table, loaded.control)
        far = False
        for seat, at in found.items():
            if at - loaded.now_ms > HORIZON_MS:
                far = True  # sent once it is near: see HORIZON_MS
                continue
            if self._first(("d", table_id, key, seat, at)) and (
                force or self._mark(table_id, str(key), seat, at, at - loaded.now_ms)
            ):
                self.jobs.at(self.jobs.deadline, at - loaded.now_ms, table_id, key, seat)
        if far and self._first(("h", table_id, loaded.now_ms // HORIZON_MS)):
            self.jobs.at(self.jobs.table, HORIZON_MS, table_id)
        due_at = codec.due_at(loaded.table)
        if due_at is not None and self._first(("t", table_id, due_at)):
            self.jobs.at(self.jobs.table, due_at - loaded.now_ms + 1, table_id)

    def _mark(self, table_id: str, step: str, seat: int, at_ms: int, delay_ms: int) -> bool:
        """Whether this worker is the first to send the deadline's job."""
        ttl = min(max(delay_ms, 0), HORIZON_MS) + MARK_AFTER_MS
        return bool(self.client.set(sent_key(table_id, step, seat, at_ms), 1, nx=True, px=ttl))

    def _first(self, what: tuple[Any, ...]) -> bool:
        with self._sent_lock:
            if what in self._sent:
                return False
            self._sent[what] = None
            while len(self._sent) > SENT_KEPT:
                self._sent.popitem(last=False)
            return True

    def sweep(self) -> int:
        """Schedule every table (at start, and after the feed was lost)."""
        count = 0
        for key in self.client.scan_iter(match=f"{KEY_PREFIX}:*:table", count=1000):
            name = key.decode() if isinstance(key, bytes) else str(key)
            table_id = name[len(KEY_PREFIX) + 2 : -len("}:table")]
            self._pool.submit(self._safely, table_id, True)
            count += 1
        return count

    def enqueue(self, table_id: str) -> None:
        """Schedule ``table_id`` on the pool, unless it is queued already: a
        table's commits that arrive faster than the pool schedules them
        make one run, which reads the table as it is then (the pool's queue
        holds at most one entry per table, whatever the commit rate)."""
        with self._queued_lock:
            if table_id in self._queued:
                return
            self._queued.add(table_id)
        self._pool.submit(self._dequeued, table_id)

    def _dequeued(self, table_id: str) -> None:
        # Out of the set before it reads: a commit from now on queues again.
        with self._queued_lock:
            self._queued.discard(table_id)
        self._safely(table_id)

    def _safely(self, table_id: str, force: bool = False) -> None:
        try:
            self.schedule(table_id, force)
        except Exception:  # one table's trouble must not stop the rest
            log.exception("could not schedule table %s", table_id)

    # The feed -----------------------------------------------------------

    def watch(self) -> None:
        """Follow every table's feed until stopped; sweep on each (re)subscription."""
        while not self._stopped.is_set():
            pubsub = None
            try:
                pubsub = self.client.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call]
                pubsub.psubscribe(PATTERN)
                self.subscribed.set()
                log.info("worker: swept %d tables", self.sweep())
                while not self._stopped.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message is None or message.get("type") != "pmessage":
                        continue
                    channel = message["channel"]
                    name = channel.decode() if isinstance(channel, bytes) else str(channel)
                    table_id = table_of(name)
                    if table_id is not None and message["data"] not in (b"-1", "-1"):
                        self.enqueue(table_id)
            except (redis.RedisError, OSError) as error:
                self.subscribed.clear()
                log.warning("worker lost the feed (%s); again in 1 s", error)
                self._stopped.wait(1.0)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(redis.RedisError, OSError):
                        pubsub.close()

    def beat(self) -> None:
        """Touch the health file while the feed is followed and Redis answers."""
        path = Path(self.settings.worker_health_file)
        # At once once subscribed (a probe right after start must not wait a
        # whole period), then every HEALTH_SECONDS.
        self.subscribed.wait(HEALTH_SECONDS)
        while True:
            with contextlib.suppress(redis.RedisError, OSError):
                if self.subscribed.is_set() and self.store.ping():
                    path.touch()
            if self._stopped.wait(HEALTH_SECONDS):
                return

    def run(self) -> None:
        """Run until SIGTERM or SIGINT."""
        worker = dramatiq.Worker(
            self.broker, worker_threads=self.settings.worker_threads, worker_timeout=50
        )
        worker.start()
        threads = [
            threading.Thread(target=self.watch, name="feed", daemon=True),
            threading.Thread(target=self.beat, name="health", daemon=True),
        ]
        for t in threads:
            t.start()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self._stopped.set())
        log.info("referee worker %d started", os.getpid())
        self._stopped.wait()
        worker.stop(timeout=5_000)
        self._pool.shutdown(wait=False, cancel_futures=True)


def healthy(settings: Settings, max_age_seconds: float = 15.0) -> bool:
    """Whether a worker on this machine touched its health file lately."""
    try:
        age = time.time() - Path(settings.worker_health_file).stat().st_mtime
    except OSError:
        return False
    return age <= max_age_seconds
