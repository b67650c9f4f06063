"""Redis round trips and commands per request, counted exactly in-process.

The service's WSGI app runs in this process (``create_app(settings, client)``)
on a redis-py client whose connection class counts what it sends: one round
trip per ``send_packed_command`` (a single command, or a whole pipeline
flush), and the commands in it (parsed from the RESP bytes). A thread-local
:class:`Tally` says which request the counts belong to; the connection
handshake (``HELLO``, ``CLIENT SETINFO`` on a new connection) is not counted.
Redis's own ``INFO commandstats`` gives the commands Redis executed, those
inside the Lua commit script included.

*Uncontended*: one seat passes at a time. *Contended*: every seat of a
7-seat table passes at the same moment from its own thread (a barrier),
exchange after exchange; a pass whose commit loses a race reloads and commits
again: its retries are the conflicts its store counted (``on_conflict``), not
its ``EVALSHA`` count, since the seat whose choice completed an exchange
commits the resolution after its choice without having lost anything.
"""

from __future__ import annotations

import logging
import os
import statistics
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import redis

from .players import after_exchange, choose_cards, table_body, winners

COMMIT_COMMAND = "EVALSHA"


def command_names(packed: Any) -> list[str]:
    """The command names in RESP bytes (one command, or a pipeline's many)."""
    single = isinstance(packed, str | bytes | bytearray | memoryview)
    chunks = [packed] if single else list(packed)
    data = b"".join(c.encode() if isinstance(c, str) else bytes(c) for c in chunks)
    names = []
    pos = 0
    while pos < len(data):
        if data[pos : pos + 1] != b"*":
            raise ValueError(f"not a RESP array at byte {pos}")
        end = data.index(b"\r\n", pos)
        count = int(data[pos + 1 : end])
        pos = end + 2
        for i in range(count):
            end = data.index(b"\r\n", pos)
            length = int(data[pos + 1 : end])
            value = data[end + 2 : end + 2 + length]
            pos = end + 2 + length + 2
            if i == 0:
                names.append(value.decode().upper())
    return names


@dataclass
class Tally:
    """What one request (or one stretch of work) sent to Redis."""

    round_trips: int = 0
    commands: Counter[str] = field(default_factory=Counter)

    @property
    def command_count(self) -> int:
        return sum(self.commands.values())


_current = threading.local()


@contextmanager
def counting() -> Iterator[Tally]:
    """Count what this thread sends to Redis inside the ``with`` block."""
    tally = Tally()
    _current.tally = tally
    try:
        yield tally
    finally:
        _current.tally = None


class CountingConnection(redis.Connection):
    """A redis-py connection that adds what it sends to the thread's :class:`Tally`."""

    _handshaking = False

    def connect_check_health(self, *args: Any, **kwargs: Any) -> None:
        self._handshaking = True
        try:
            super().connect_check_health(*args, **kwargs)
        finally:
            self._handshaking = False

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        tally = getattr(_current, "tally", None)
        if tally is not None and not self._handshaking:
            tally.round_trips += 1
            tally.commands.update(command_names(command))
        super().send_packed_command(command, check_health)  # type: ignore[no-untyped-call]


def counting_client(url: str, timeout: float = 10.0) -> redis.Redis:
    """A client like the service's (``service.storage.client.connect``, one
    server) whose connections count round trips and commands."""
    return redis.Redis.from_url(
        url,
        connection_class=CountingConnection,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
    )


def in_process_app(url: str, ttl_seconds: int = 3600) -> Any:
    """The service's WSGI app in this process, on a counting client; its other
    settings come from the environment, as under gunicorn."""
    from service import create_app
    from service.config import Settings

    env = {**ONE_ADDRESS_ENV, **os.environ}
    settings = Settings.from_env(env, redis_url=url, table_ttl_seconds=ttl_seconds)
    app = create_app(settings, counting_client(url))
    # Thousands of in-process requests: their access lines would bury the report.
    logging.getLogger("referee").setLevel(logging.WARNING)
    return app


ONE_ADDRESS_ENV = {
    "RATE_LIMIT_PER_TOKEN": "1000000/second",
    "RATE_LIMIT_ANONYMOUS": "1000000/second",
    "RATE_LIMIT_TABLES": "1000000/minute",
    "RATE_LIMIT_PER_ADDRESS": "1000000/second",
    "STREAM_MAX_PER_ADDRESS": "1000000",
    "CONNECTIONS_PER_ADDRESS": "0",
    "IN_FLIGHT_PER_ADDRESS": "0",
}
"""The benchmark plays for many people from one address, and faster than people
play, so the limits are set out of its reach (the streams of many players'
seats too: a table's and a seat's caps stay as they are; and the connections
an address holds, which only gunicorn's workers count, and its requests in
flight, which a bench's concurrency from one address passes); they stay on, so
each request still pays the limiter's Redis round trip, and each stream its
leases, as in production. The environment (``--env``) wins."""


def commandstats(client: redis.Redis) -> Counter[str]:
    """Calls per command so far, from ``INFO commandstats``."""
    stats = client.info("commandstats")
    return Counter(
        {name.removeprefix("cmdstat_").upper(): int(v["calls"]) for name, v in stats.items()}
    )


def executed_between(before: Counter[str], after: Counter[str]) -> Counter[str]:
    """Commands Redis executed between two :func:`commandstats` readings,
    less the ``INFO`` calls that read them."""
    delta = after - before
    delta.pop("INFO", None)
    return delta


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


RETRIED = frozenset({"replicas-behind", "redis-busy", "redis-unavailable"})
"""The 503s a client is told to retry with the same Idempotency-Key (a
replica slow to confirm on a busy machine, a pool busy a moment)."""


def write(client: Any, method: str, url: str, keyed: bool, **kwargs: Any) -> Any:
    """``client``'s ``method`` on ``url``; ``keyed``: with an Idempotency-Key,
    sent again with it (after its ``Retry-After``, at most 1 s) while the
    answer is a 503 of :data:`RETRIED`, as the docs tell a client to; up to
    20 times. Unkeyed (the Redis cost's count: a key's record is Redis work
    a pass without one does not make) it is sent once."""
    headers = dict(kwargs.pop("headers", {}))
    if keyed:
        headers["Idempotency-Key"] = uuid.uuid4().hex
    for _ in range(20 if keyed else 1):
        r = getattr(client, method)(url, headers=headers, **kwargs)
        if r.status_code != 503 or (r.get_json() or {}).get("code") not in RETRIED:
            break
        time.sleep(min(float(r.headers.get("Retry-After") or 0.1), 1.0))
    return r


class HttpTable:
    """A table played through the in-process app's test client."""

    def __init__(
        self, client: Any, players: int, rounds: int = 5, keyed: bool = False, **options: Any
    ) -> None:
        """``keyed``: every write with an Idempotency-Key, retried on a 503
        that says to (:func:`write`; behind replicas a busy machine's
        replica may confirm late)."""
        self.client = client
        self.keyed = keyed
        r = write(client, "post", "/v1/tables", keyed, json=table_body(players, rounds, **options))
        assert r.status_code == 201, r.get_json()
        created = r.get_json()
        self.id = created["table_id"]
        self.url = f"/v1/tables/{self.id}"
        self.host = created["host_token"]
        self.tokens = [s["token"] for s in created["seat_tokens"]]
        self.options = created["table"]["options"]
        self.round = 0
        self.exchange = 1
        self.direction = "left"
        self.hands: list[list[str]] = []

    def deal(self) -> Any:
        r = write(self.client, "post", f"{self.url}/rounds", self.keyed, headers=bearer(self.host))
        assert r.status_code == 201, r.get_json()
        answer = r.get_json()
        self.round = answer["round"]
        self.exchange = 1
        self.direction = answer["table"]["round"]["direction"]
        return answer

    def read_hands(self) -> None:
        self.hands = [self.seat_view(s)["hand"] for s in range(len(self.tokens))]

    def seat_view(self, seat: int) -> Any:
        r = self.client.get(f"{self.url}/seats/{seat}", headers=bearer(self.tokens[seat]))
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def view(self) -> Any:
        r = self.client.get(self.url)
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def choices(self) -> list[list[str]]:
        return [choose_cards(h, self.options["pass_count"]) for h in self.hands]

    def pass_(self, seat: int, cards: list[str], client: Any = None) -> Any:
        r = write(
            client or self.client,
            "put",
            f"{self.url}/rounds/{self.round}/exchanges/{self.exchange}/passes/{seat}",
            self.keyed,
            json={"cards": cards},
            headers=bearer(self.tokens[seat]),
        )
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def resolved(self, passed: list[list[str]], answer: Any) -> bool:
        """Book the exchange that ``answer`` (the resolving pass) resolved;
        whether the round still passes."""
        self.hands = after_exchange(self.hands, passed, self.direction)
        assert sorted(answer["hand"]) == sorted(self.hands[answer["seat"]])
        self.exchange += 1
        return bool(answer["round_status"] == "passing")

    def claim_if_won(self) -> bool:
        ready = winners(self.hands, self.options["win_count"])
        if not ready:
            return False
        r = write(
            self.client,
            "post",
            f"{self.url}/rounds/{self.round}/claims",
            self.keyed,
            headers=bearer(self.tokens[ready[0]]),
        )
        assert r.status_code == 200, r.get_json()
        return True

    def play_round(self, each: Callable[[str, Callable[[], Any]], Any] | None = None) -> None:
        """Deal and play a round to its end, one request at a time; ``each``
        wraps every request (``each(kind, call)``) to measure it."""
        run = each or (lambda kind, call: call())
        run("deal", self.deal)
        self.hands = [
            run("seat", partial(self.seat_view, s))["hand"] for s in range(len(self.tokens))
        ]
        while True:
            passed = self.choices()
            answer = None
            for seat, cards in enumerate(passed):
                answer = run("pass", partial(self.pass_, seat, cards))
            assert answer is not None and answer["resolved"]
            if not self.resolved(passed, answer):
                return
            run("view", self.view)
            ready = winners(self.hands, self.options["win_count"])
            if ready:
                run("claim", self.claim_if_won)
                return


def _summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "max": 0.0, "n": 0}
    return {"mean": statistics.fmean(values), "max": max(values), "n": len(values)}


def uncontended(url: str, tables: int = 4, seats: int = 7) -> dict[str, Any]:
    """Round trips and commands per request, one request at a time, over
    ``tables`` tables of ``seats`` seats playing one round each."""
    app = in_process_app(url)
    client = app.test_client()
    stats = redis.Redis.from_url(url)
    warm = HttpTable(client, seats)  # warm: scripts loaded, connection open
    warm.deal()
    warm.read_hands()
    warm.pass_(0, warm.choices()[0])
    per_kind: dict[str, list[Tally]] = {}
    executed: dict[str, Counter[str]] = {}

    def each(kind: str, call: Callable[[], Any]) -> Any:
        before = commandstats(stats)
        with counting() as tally:
            result = call()
        executed.setdefault(kind, Counter()).update(executed_between(before, commandstats(stats)))
        per_kind.setdefault(kind, []).append(tally)
        return result

    for _ in range(tables):
        each("create", lambda: HttpTable(client, seats)).play_round(each)
    out: dict[str, Any] = {}
    for kind, tallies in per_kind.items():
        sent: Counter[str] = Counter()
        for t in tallies:
            sent.update(t.commands)
        n = len(tallies)
        out[kind] = {
            "requests": n,
            "round_trips": _summary([t.round_trips for t in tallies]),
            "commands_sent": _summary([t.command_count for t in tallies]),
            "commands_sent_by_name": {k: v / n for k, v in sorted(sent.items())},
            "commands_executed": sum(executed[kind].values()) / n,
            "commands_executed_by_name": {k: v / n for k, v in sorted(executed[kind].items())},
        }
    return out


def contended(url: str, exchanges: int = 60, seats: int = 7) -> dict[str, Any]:
    """Every seat of a ``seats``-seat table passes at the same moment, from
    its own thread and its own app (as from separate worker processes: one
    process's moves on a table take turns, so only separate stores race),
    for ``exchanges`` exchanges (new rounds and tables as needed): round
    trips, commit attempts and retries per pass."""
    apps = [in_process_app(url) for _ in range(seats)]
    setup = apps[0].test_client()
    barrier = threading.Barrier(seats + 1)
    table: HttpTable | None = None
    passed: list[list[str]] = []
    tallies: list[Tally | None] = [None] * seats
    answers: list[Any] = [None] * seats
    errors: list[BaseException] = []
    stop = False

    lost = [0] * seats
    for seat, app in enumerate(apps):
        store = app.extensions["referee"].store
        counted = store.on_conflict

        def conflict(seat: int = seat, counted: Any = counted) -> None:
            lost[seat] += 1
            if counted is not None:
                counted()

        store.on_conflict = conflict

    def seat_thread(seat: int) -> None:
        client = apps[seat].test_client()
        client.get("/readyz")  # open this thread's connection before counting
        try:
            while True:
                barrier.wait()
                if stop:
                    return
                try:
                    assert table is not None
                    with counting() as tally:
                        answers[seat] = table.pass_(seat, passed[seat], client)
                    tallies[seat] = tally
                except Exception as error:  # reported by the main thread
                    errors.append(error)
                barrier.wait()
        except threading.BrokenBarrierError:
            return

    threads = [threading.Thread(target=seat_thread, args=(s,), daemon=True) for s in range(seats)]
    for t in threads:
        t.start()
    round_trips: list[int] = []
    attempts: list[int] = []
    retries: list[int] = []
    executed: Counter[str] = Counter()
    stats = redis.Redis.from_url(url)
    done = 0
    try:
        while done < exchanges:
            if table is None or not table.hands:
                table = HttpTable(setup, seats, rounds=1000)
                table.deal()
                table.read_hands()
            passed = table.choices()
            before = commandstats(stats)
            lost[:] = [0] * seats
            barrier.wait()  # go
            barrier.wait()  # all passed
            executed.update(executed_between(before, commandstats(stats)))
            if errors:
                raise errors[0]
            done += 1
            for seat, tally in enumerate(tallies):
                assert tally is not None
                round_trips.append(tally.round_trips)
                attempts.append(tally.commands[COMMIT_COMMAND])
                retries.append(lost[seat])
            last = [a for a in answers if a["resolved"]]
            assert len(last) == 1, "an exchange must resolve exactly once"
            if not table.resolved(passed, last[0]) or table.claim_if_won():
                table.deal()
                table.read_hands()
    finally:
        stop = True
        barrier.abort()
        for t in threads:
            t.join(10)
    return {
        "seats": seats,
        "exchanges": done,
        "passes": len(round_trips),
        "round_trips": _summary([float(r) for r in round_trips]),
        "commit_attempts": _summary([float(a) for a in attempts]),
        "retries": _summary([float(r) for r in retries]),
        "passes_retried": sum(1 for r in retries if r > 0),
        "commands_executed": sum(executed.values()) / max(len(round_trips), 1),
        "commands_executed_by_name": {
            k: v / max(len(round_trips), 1) for k, v in sorted(executed.items())
        },
        "max_retries_of_one_pass": max(retries, default=0),
    }
