"""The worker process: follow the tables' clock notes, put each table in the
bucket of the instant it falls due (:mod:`.due`), send a bucket's job when
its end comes (the dispatcher), look at a bucket's tables when its job runs
(dramatiq's worker threads), and sweep every table at start and after notes
may have been lost (the subscription broke, or the jobs Redis did)."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

import dramatiq
import redis

from .. import clock
from ..config import Settings, is_cluster_url
from ..games import codec
from ..storage.embedded import ensure_embedded_redis
from ..storage.quota import RefereeMoves, creator_of, limits_storage, wait_ms
from ..storage.replicas import Acknowledgement
from ..storage.store import KEY_PREFIX, NO_CONTROL, Contended, Loaded, TableNotFound, TableStore
from ..storage.watch import PrimaryWatch
from .due import LEASE_MS, DueIndex
from .jobs import NAMESPACE, Jobs, make_broker
from .metrics import WorkerMetrics
from .moves import WorkerChange, deadline_move, settle

log = logging.getLogger("referee.worker")

PATTERN = f"{KEY_PREFIX}:*:clock"
"""Every table's clock channel (``store.clock_channel``)."""
MOVES_PER_LOOK = 32
"""Moves one look at a table makes at most (the choices of one step whose
seats all timed out, bots at ``bot_delay_ms: 0``) before it looks again a
bucket later. A look never goes on into the next step: a move that opens a
step due at once puts the table in a later bucket, behind every table that
fell due before it (one table's long round delays no other's deadline)."""
STUCK_MS = 5_000
"""When a table whose deadline passed with no move to make (the rules
refused the bot's move) is looked at again."""
CLOCK_SECONDS = 5.0
"""How often the worker reads Redis's clock again (its own follows it between)."""
DISPATCH_SECONDS = 0.5
"""The longest the dispatcher waits before it looks for due buckets again
(sooner when a bucket it knows of ends sooner)."""
HEALTH_SECONDS = 2.0


def table_of(channel: str) -> str | None:
    """The table id in a clock channel's name, ``None`` for another name."""
    head, tail = f"{KEY_PREFIX}:{{", "}:clock"
    if channel.startswith(head) and channel.endswith(tail):
        return channel[len(head) : -len(tail)]
    return None


class Worker:
    """One ``referee worker`` process on ``settings``' Redis."""

    def __init__(self, settings: Settings) -> None:
        from ..storage.client import redis_client

        self.settings = settings
        self.client = redis_client(settings)
        # No clock notes from its own commits: it notes the table itself.
        # Behind Sentinels, nothing is written on a primary being replaced
        # (its moves would be lost), and a failover is followed at once.
        self.store = TableStore(
            self.client,
            codec,
            settings.table_ttl_seconds,
            turn_wait_seconds=settings.redis_timeout_seconds,
            events_kept=settings.events_kept,
            rounds_kept=settings.rounds_kept,
            notes=clock.next_instant,
            publish_notes=False,
            acknowledgement=Acknowledgement(watch=PrimaryWatch.of(self.client)),
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
        self.jobs = Jobs(self.broker, self.on_due)
        self.index = DueIndex(self.broker.client, NAMESPACE)
        self._stopped = threading.Event()
        self._pool = ThreadPoolExecutor(max(2, settings.worker_threads))
        self._offset_ms: int | None = None
        self._offset_at = 0.0
        self.subscribed = threading.Event()
        self.metrics = WorkerMetrics()
        # Each creator's budget of referee moves (RULES.md 5.4, storage.quota).
        self.quota = RefereeMoves(
            limits_storage(
                self.client,
                settings.redis_url,
                settings.redis_timeout_seconds,
                settings.redis_max_connections,
                settings.redis_pool_timeout_seconds,
            ),
            settings.rate_limit_referee_moves,
            settings.client_key_referee_moves_per_second,
            self.client,
        )
        self._wake = threading.Event()
        self._next_ms: float = 0.0  # when the dispatcher looks again (Redis's clock)
        self._lost = threading.Event()  # notes may have been lost: sweep once Redis answers

    # Redis's clock -------------------------------------------------------

    def now_ms(self) -> int:
        """Redis's clock (ms since the epoch), read every
        :data:`CLOCK_SECONDS` and followed by this machine's in between."""
        if self._offset_ms is None or time.monotonic() - self._offset_at > CLOCK_SECONDS:
            local = time.time() * 1000
            self._offset_ms = int(self.store.now_ms() - local)
            self._offset_at = time.monotonic()
        return int(time.time() * 1000) + self._offset_ms

    # Buckets --------------------------------------------------------------

    def note(self, table_id: str, at_ms: int) -> None:
        """Look at ``table_id`` at ``at_ms`` (Redis's clock): put it in its
        bucket, and wake the dispatcher if that bucket ends before it would
        look again."""
        self.metrics.notes.inc()
        bucket, _ = self.index.add(table_id, at_ms, self.now_ms())
        if bucket < self._next_ms:
            self._wake.set()

    def dispatch(self) -> None:
        """Send the job of every bucket whose end has come (of all the
        workers' buckets: one claims each), then wait for the next one's
        end, at most :data:`DISPATCH_SECONDS`, until stopped."""
        while not self._stopped.is_set():
            wait = DISPATCH_SECONDS
            try:
                now = self.now_ms()
                claimed, first = self.index.claim(now)
                for bucket, shard in claimed:
                    self.jobs.send_due(bucket, shard)
                if first is not None:
                    wait = min(max((first - now) / 1000, 0.0), DISPATCH_SECONDS)
            except (redis.RedisError, OSError) as error:
                self._lost.set()
                log.warning("worker: the jobs Redis does not answer (%s)", error)
                wait = 1.0
            else:
                if self._lost.is_set():
                    # Notes this worker could not put in a bucket: look at every table.
                    self._lost.clear()
                    log.info("worker: swept %d tables", self.sweep())
            self._next_ms = self.now_ms() + wait * 1000 if wait else 0
            self._wake.wait(wait)
            self._wake.clear()

    def on_due(self, bucket: int, shard: int) -> None:
        """A bucket's job: look at each of its tables (on the pool, at once),
        renewing the bucket's lease while they are looked at, then drop the
        bucket (until then it is claimed again when its lease runs out:
        :mod:`.due`)."""
        self.metrics.buckets.inc()
        self.index.renew(bucket, shard, self.now_ms())
        tables = self.index.take(bucket, shard, self.now_ms())
        pending = {self._pool.submit(self._safely, t) for t in tables}
        while pending:
            _, pending = wait(pending, timeout=LEASE_MS / 2000)
            if pending:
                self.index.renew(bucket, shard, self.now_ms())
        self.index.done(bucket, shard)

    # A table ----------------------------------------------------------------

    def look(self, table_id: str) -> None:
        """Do what is due on the table by Redis's clock, one commit at a
        time: store what fell due and nobody stored (a closed window, a
        complete step whose resolver died) and open a step's clock when no
        commit did (``settle``), then make each seat's move whose deadline
        has passed (its bot's, or its default move: ``deadline_move``); then
        note the table for when it next falls due. Every move reads the
        table again and commits under its version: a look that races a
        seat's own move, another worker or a second delivery changes
        nothing that was already done.

        Each move is first charged to the table's creator (RULES.md 5.4,
        :mod:`service.storage.quota`); a creator whose budget is spent gets
        no move until its window ends, and the table is looked at again at
        its turn among that creator's held tables (``RefereeMoves.turn``).
        A look makes the moves of the step it found (a step's choices) and
        no more: the next step's moves wait for a later bucket, so tables
        due at the same time take turns."""
        after: list[int | None] = [None]
        late: list[int] = [0]  # how late the move made is (ms)
        held: list[float | None] = [None]  # the creator's budget is spent: seconds to wait
        charged: list[bool] = [False]  # this move is paid for (a lost race re-runs act)
        started: list[str | None] = [None]  # the step of this look's first move

        def act(loaded: Loaded) -> WorkerChange:
            after[0] = None
            control = loaded.control or NO_CONTROL
            if loaded.due is not None or clock.pending(loaded.table, control):
                return settle(loaded)
            key, found = clock.deadlines(loaded.table, control)
            if started[0] is not None and key != started[0]:
                after[0] = loaded.now_ms  # the next step's moves: a later bucket
                return WorkerChange(loaded.table)
            turn = codec.turn_of(loaded.table)
            due_seats = () if turn is None else turn.seats
            passed = False
            for seat, at in sorted(found.items(), key=lambda item: (item[1], item[0])):
                if at > loaded.now_ms:
                    break
                change = deadline_move(loaded, str(key), seat)
                if isinstance(change, WorkerChange):
                    if not charged[0]:
                        who = creator_of(table_id, loaded.auth)
                        held[0] = self.quota.charge(who)
                        if held[0] is not None:
                            self.metrics.held.inc()
                            # Its turn among the creator's held tables, not the window's end.
                            after[0] = self.quota.turn(who, loaded.now_ms + wait_ms(held[0]))
                            return WorkerChange(loaded.table)  # nothing to write
                        charged[0] = True
                    started[0] = key
                    late[0] = loaded.now_ms - at
                    return change
                # A seat the step waits on with nothing to make is looked at
                # again later; a bot that may act and would not is done.
                passed = passed or seat in due_seats
            upcoming = [at for at in found.values() if at > loaded.now_ms]
            due = codec.due_at(loaded.table)
            instants = [*upcoming, *(() if due is None else (due,))]
            if passed:
                log.warning("table %s: a deadline passed with no move to make", table_id)
                self.metrics.stuck.inc()
                instants.append(loaded.now_ms + STUCK_MS)
            after[0] = min(instants) if instants else None
            return WorkerChange(loaded.table)  # nothing to write

        self.metrics.looks.inc()
        for _ in range(MOVES_PER_LOOK):
            charged[0] = False
            try:
                loaded, change = self.store.apply(table_id, act)
            except TableNotFound:
                return
            except Contended:
                self.note(table_id, self.now_ms())
                return
            if change.settle:
                self.metrics.moves["settle"].inc()
            elif change.table is not loaded.table or change.events or change.choice:
                kind = "bot" if change.timed_out is None else "default"
                self.metrics.moves[kind].inc()
                self.metrics.lateness.observe(late[0] / 1000)
                if any(e["type"] == "clock-paused" for e in change.events):
                    self.metrics.paused.inc()
            else:
                if after[0] is not None:
                    self.note(table_id, after[0])
                return
            if change.choice is None:
                # A turn's move or what was settled: what it leaves, without reading it again.
                at = self.store.instant_after(loaded, change)
                if at is None:
                    return
                turn = codec.turn_of(change.table)
                moved_on = started[0] is not None and (turn is None or turn.key != started[0])
                if at > loaded.now_ms or moved_on:
                    # The next step's moves, even those due at once, wait for
                    # a later bucket: no table holds a thread for a round.
                    self.note(table_id, max(at, loaded.now_ms))
                    return
            # A step's choice (its other seats may be due too), or due at once in it.
        self.note(table_id, self.now_ms())  # more to do: a bucket later

    def _safely(self, table_id: str) -> None:
        try:
            self.look(table_id)
        except Exception:  # one table's trouble must not stop the rest
            log.exception("could not look at table %s", table_id)
            self.metrics.errors.inc()
            try:
                self.note(table_id, self.now_ms() + STUCK_MS)
            except Exception:
                self._lost.set()  # looked at by the sweep once Redis answers

    def sweep(self) -> int:
        """Look at every table (at start, and after the notes were lost)."""
        count = 0
        for key in self.client.scan_iter(match=f"{KEY_PREFIX}:*:table", count=1000):
            name = key.decode() if isinstance(key, bytes) else str(key)
            table_id = name[len(KEY_PREFIX) + 2 : -len("}:table")]
            self._pool.submit(self._safely, table_id)
            count += 1
        return count

    # The notes ---------------------------------------------------------------

    def watch(self) -> None:
        """Follow every table's clock notes until stopped; sweep on each
        (re)subscription (redis-py's own too: notes of the gap are lost)."""
        while not self._stopped.is_set():
            pubsub = None
            try:
                pubsub = self.client.pubsub(ignore_subscribe_messages=True)
                pubsub.psubscribe(PATTERN)
                assert pubsub.connection is not None  # made by psubscribe
                # redis-py connects again and subscribes anew by itself: then sweep.
                pubsub.connection.register_connect_callback(self._reconnected)
                self.subscribed.set()
                log.info("worker: swept %d tables", self.sweep())
                while not self._stopped.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message is not None and message.get("type") == "pmessage":
                        self._noted(message)
            except (redis.RedisError, OSError) as error:
                self.subscribed.clear()
                log.warning("worker lost the clock notes (%s); again in 1 s", error)
                self._stopped.wait(1.0)
            except Exception:
                self.subscribed.clear()  # never healthy while not following
                log.exception("worker: the clock notes stopped; again in 1 s")
                self._stopped.wait(1.0)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(redis.RedisError, OSError):
                        pubsub.close()
        self.subscribed.clear()

    def _reconnected(self, connection: Any) -> None:
        """The notes' connection was made again (a weak callback of
        redis-py's: a method): the notes of the gap are lost, sweep."""
        self._lost.set()

    def _noted(self, message: dict[str, Any]) -> None:
        """One clock note (``referee:{<id>}:clock``, the instant in ms): put
        in its bucket; one the jobs Redis could not take makes the next
        sweep look at every table, and the notes go on."""
        channel, data = message["channel"], message["data"]
        name = channel.decode() if isinstance(channel, bytes) else str(channel)
        text = data.decode() if isinstance(data, bytes) else str(data)
        table_id = table_of(name)
        if table_id is None or not (text.isascii() and text.isdigit()) or len(text) > 16:
            return
        try:
            self.note(table_id, int(text))
        except (redis.RedisError, OSError):
            self._lost.set()

    def beat(self) -> None:
        """Touch the health file while the notes are followed and Redis answers."""
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
        self.metrics.serve(self.settings.worker_metrics_port)
        threads = [
            threading.Thread(target=self.watch, name="notes", daemon=True),
            threading.Thread(target=self.dispatch, name="dispatch", daemon=True),
            threading.Thread(target=self.beat, name="health", daemon=True),
        ]
        for t in threads:
            t.start()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self._stopped.set())
        log.info("referee worker %d started", os.getpid())
        self._stopped.wait()
        self._wake.set()
        worker.stop(timeout=5_000)
        self._pool.shutdown(wait=False, cancel_futures=True)


def healthy(settings: Settings, max_age_seconds: float = 15.0) -> bool:
    """Whether a worker on this machine touched its health file lately."""
    try:
        age = time.time() - Path(settings.worker_health_file).stat().st_mtime
    except OSError:
        return False
    return age <= max_age_seconds
