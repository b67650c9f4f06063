"""Failovers under play (issue 41): no acknowledged move lost, and how long
moves are refused, with the service behind real Redis Sentinels.

A primary, two replicas and three Sentinels on this machine
(:class:`RedisSet`; the Redis settings of deploy/redis.conf), the service
(a real gunicorn) on ``redis+sentinel://``, and six tables (two of each
game) each played by a thread of its own (:class:`Player`) through HTTP:
every move sent again until it is answered other than 503, and each
acknowledged one (200 or 201) noted with its place in its round. Then a
drill (:func:`drill`): ``SENTINEL FAILOVER`` (planned) or a SIGKILL of the
primary (its process restarted at once, as a supervisor would, so that it
comes back as a replica), twice, each once every table plays on and the
new primary has its two replicas again.

Counted: every acknowledged move the tables no longer hold (a table that
went back behind a move it had acknowledged: each player checks whenever
the table is not where its last answer left it, and every table at the
end), and for each failover, from the move answers and a ``/readyz``
read every 50 ms: how long moves were refused (the union of the spans of
the refused requests: 503s and broken connections, from when each was
sent to when it was answered), how long ``/readyz`` said 503 meanwhile, and
how long it said 200 while a move was being refused.
"""

from __future__ import annotations

import http.client
import json
import random
import shutil
import statistics
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from service.games.ship.players import choose_cards

from .measures import Target
from .processes import RedisServer, free_port, production_redis_settings

SENTINEL = shutil.which("redis-sentinel")
SEATS = 4
GAMES = ("ship", "ship", "sevens", "sevens", "may-i", "may-i")
"""The six tables: two of each game."""

DOWN_AFTER_MS = 1000
"""The Sentinels' ``down-after-milliseconds`` (their default is 30 s): a
dead primary is failed over about this long after it died."""

WAIT_ENV = {"REDIS_WAIT_TIMEOUT_MS": "300", "REDIS_TIMEOUT_SECONDS": "0.5"}
"""The service's settings for the drills, beside ``REDIS_WAIT_REPLICAS``."""


# Redis and its Sentinels ---------------------------------------------------


class RedisSet:
    """A primary, two replicas and three Sentinels watching ``mymaster``,
    each on a free port with its files in ``folder``."""

    def __init__(self, folder: Path, down_after_ms: int = DOWN_AFTER_MS) -> None:
        if SENTINEL is None:
            raise RuntimeError("needs redis-sentinel (apt-get install redis-sentinel)")
        self.folder = folder
        self.down_after_ms = down_after_ms
        settings = production_redis_settings()
        self.nodes = [RedisServer(folder / "node0", settings=dict(settings))]
        primary = self.nodes[0].port
        for i in (1, 2):
            follow = {**settings, "replicaof": f"127.0.0.1 {primary}"}
            self.nodes.append(RedisServer(folder / f"node{i}", settings=follow))
        self.sentinel_ports = [free_port() for _ in range(3)]
        self.sentinels: list[subprocess.Popen[bytes]] = []
        self._clients: dict[int, redis.Redis] = {}

    def ask(self, port: int) -> Any:
        """A client of the server (a Sentinel or a node) on ``port``, kept
        until :meth:`stop`."""
        if port not in self._clients:
            self._clients[port] = redis.Redis(port=port, socket_timeout=1)
        return self._clients[port]

    def start(self) -> RedisSet:
        for node in self.nodes:
            node.start()
        self.wait_replicas(2, 30)
        for port in self.sentinel_ports:
            conf = self.folder / f"sentinel-{port}.conf"
            conf.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {self.folder}\n"
                f"sentinel monitor mymaster 127.0.0.1 {self.nodes[0].port} 2\n"
                f"sentinel down-after-milliseconds mymaster {self.down_after_ms}\n"
                f"sentinel failover-timeout mymaster {max(4000, 4 * self.down_after_ms)}\n"
                "sentinel parallel-syncs mymaster 2\n"
            )
            with open(self.folder / f"sentinel-{port}.log", "ab") as log:
                self.sentinels.append(
                    subprocess.Popen([str(SENTINEL), str(conf)], stdout=log, stderr=log)
                )
        deadline = time.monotonic() + 30
        for port in self.sentinel_ports:  # each has found both replicas
            ask = self.ask(port)
            while True:
                try:
                    state: Any = ask.sentinel_master("mymaster")
                    if int(state["num-slaves"]) == 2:
                        break
                except (redis.ConnectionError, redis.ResponseError):
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"sentinel {port} did not see the replicas")
                time.sleep(0.05)
        return self

    @property
    def url(self) -> str:
        """The service's ``REDIS_URL``."""
        hosts = ",".join(f"127.0.0.1:{p}" for p in self.sentinel_ports)
        return f"redis+sentinel://{hosts}/mymaster"

    def named(self) -> set[int]:
        """The primary's port as each Sentinel that answers names it."""
        found = set()
        for port in self.sentinel_ports:
            try:
                named: Any = self.ask(port).sentinel_get_master_addr_by_name("mymaster")
                found.add(int(named[1]))
            except (redis.RedisError, TypeError):
                continue
        return found

    def primary(self) -> RedisServer:
        """The node every Sentinel names (waits until they agree)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            named = self.named()
            if len(named) == 1:
                port = named.pop()
                return next(n for n in self.nodes if n.port == port)
            time.sleep(0.05)
        raise RuntimeError("the Sentinels do not agree on a primary")

    def wait_replicas(self, count: int, timeout: float) -> None:
        """Until the primary (by the Sentinels once they run) has ``count``
        replicas online at its own offset, and is the only master."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            primary = self.primary() if self.sentinels else self.nodes[0]
            try:
                info = self.ask(primary.port).info("replication")
                online = [
                    v
                    for k, v in info.items()
                    if k.startswith("slave") and isinstance(v, dict) and v["state"] == "online"
                ]
                roles = [
                    self.ask(node.port).info("replication")["role"]
                    for node in self.nodes
                    if node.proc is not None
                ]
                masters = roles.count("master")
                if (
                    len(online) >= count
                    and masters == 1
                    and (not self.sentinels or self._settled(count))
                ):
                    return
            except redis.RedisError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the primary did not get {count} replicas in {timeout} s")

    def _settled(self, count: int) -> bool:
        """Whether every Sentinel sees ``count`` replicas that say they are
        replicas, linked to their master: a Sentinel that last read a
        promoted replica's role before (it reads a replica's every 10 s)
        may make it a replica again during the next failover, which then
        fails (the Sentinels name a primary that is none, until they fail
        it over again, some 25 s later)."""
        for port in self.sentinel_ports:
            replicas: Any = self.ask(port).sentinel_slaves("mymaster")
            fine = [
                r
                for r in replicas
                if r["role-reported"] == "slave"
                and r["master-link-status"] == "ok"
                and not (r["is_sdown"] or r["is_disconnected"])
            ]
            if len(fine) < count:
                return False
        return True

    def failover(self) -> int:
        """``SENTINEL FAILOVER mymaster`` (a planned failover); returns the old primary's port."""
        before = self.primary().port
        self.ask(self.sentinel_ports[0]).execute_command("SENTINEL", "FAILOVER", "mymaster")
        return before

    def kill_primary(self) -> int:
        """SIGKILL the primary; returns its port."""
        primary = self.primary()
        assert primary.proc is not None
        primary.proc.kill()
        primary.proc.wait()
        primary.proc = None
        return primary.port

    def restart(self, port: int) -> None:
        """Start the node on ``port`` again (with its append-only file):
        the Sentinels make it a replica of the new primary."""
        node = next(n for n in self.nodes if n.port == port)
        node.settings.pop("replicaof", None)
        node.start()

    def wait_switched(self, before: int, timeout: float = 60) -> int:
        """Until every Sentinel names another primary than ``before``; returns it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            named = self.named()
            if len(named) == 1 and before not in named:
                return named.pop()
            time.sleep(0.05)
        raise RuntimeError("no failover")

    def stop(self) -> None:
        for client in self._clients.values():
            client.close()
        for proc in self.sentinels:
            proc.terminate()
            proc.wait(10)
        for node in self.nodes:
            node.stop()


# The players -----------------------------------------------------------------


@dataclass
class Log:
    """Every move's answer (sent and answered, monotonic s; status: 0 for
    a broken connection) and every ``/readyz`` read, of all the players."""

    moves: list[tuple[float, float, int]] = field(default_factory=list)
    ready: list[tuple[float, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Player:
    """One table of ``game`` played by one thread through ``base`` (seat 0
    deals first; no clocks): every move is sent again until answered other
    than 503; ``acked`` holds where each acknowledged move left its round
    (``(round, step)``: a deal is step 0)."""

    def __init__(self, game: str, base: str, rng: random.Random, log: Log) -> None:
        self.game = game
        host, _, port = base.removeprefix("http://").partition(":")
        self.address = (host, int(port))
        self.http = http.client.HTTPConnection(*self.address, timeout=5)
        self.rng = rng
        self.log = log
        self.acked: set[tuple[int, int, int]] = set()
        self.lost: list[tuple[int, int, int]] = []
        self.answered = 0  # acknowledged moves so far
        self.error: BaseException | None = None

    # HTTP -----------------------------------------------------------------

    def send(self, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
        """The answer (status, JSON) to a request sent again until it is
        answered other than 503 (moves: and noted in the log)."""
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        move = method != "GET"
        while True:
            sent = time.monotonic()
            try:
                self.http.request(
                    method, path, body=None if body is None else json.dumps(body), headers=headers
                )
                answer = self.http.getresponse()
                raw = answer.read()
                status = answer.status
            except (OSError, http.client.HTTPException):
                self.http.close()
                self.http = http.client.HTTPConnection(*self.address, timeout=5)
                status, raw = 0, b""
            if move:
                with self.log.lock:
                    self.log.moves.append((sent, time.monotonic(), status))
            if status in (0, 503):
                time.sleep(0.02)
                continue
            return status, json.loads(raw) if raw else None

    def create(self) -> None:
        variant = {"ship": "classic", "sevens": "sevens", "may-i": "may-i"}[self.game]
        body = {"variant": variant, "players": [f"P{i}" for i in range(SEATS)], "first_dealer": 0}
        if self.game == "ship":
            body["options"] = {"max_exchanges": 40}
        status, made = self.send("POST", "/v1/tables", body=body)
        assert status == 201, made
        self.url = f"/v1/tables/{made['table_id']}"
        self.acked = set()  # a new table (the last one's were checked)
        self.host = made["host_token"]
        self.tokens = [s["token"] for s in made["seat_tokens"]]

    # Where the table is ------------------------------------------------------

    def where(self, view: dict[str, Any]) -> tuple[int, int, set[int]]:
        """The round, the moves made in it (for My Ship Sails the exchange
        under way) and the seats that chose in it, as ``view`` shows."""
        rnd = view["round"]
        if rnd is None:
            return 0, 0, set()
        if self.game == "ship":
            chosen = {s["seat"] for s in view["seats"] if s.get("chosen")}
            passing = rnd["status"] == "passing"
            return rnd["number"], rnd["exchange"] if passing else 10**6, chosen
        taken = rnd["turns_taken"] if self.game == "sevens" else rnd["moves_taken"]
        return rnd["number"], taken, set()

    def missing(self, view: dict[str, Any]) -> list[tuple[int, int, int]]:
        """The acknowledged moves the table as ``view`` shows it does not hold."""
        number, step, chosen = self.where(view)
        out = []
        for r, s, seat in self.acked:
            if r > number:
                out.append((r, s, seat))
            elif r == number and s:
                if self.game == "ship":
                    if s > step or (s == step and seat not in chosen):
                        out.append((r, s, seat))
                elif s > step:
                    out.append((r, s, seat))
        return out

    def check(self) -> None:
        """Count the acknowledged moves the table lost, and forget them."""
        status, view = self.send("GET", self.url)
        assert status == 200, view
        missing = self.missing(view)
        self.lost += missing
        self.acked -= set(missing)

    # Playing -------------------------------------------------------------------

    def ack(self, where: tuple[int, int, int]) -> None:
        self.acked.add(where)
        self.answered += 1

    def play(self, stop: threading.Event) -> None:
        """Play until ``stop``; any refusal makes the player check the table."""
        try:
            while not stop.is_set():
                status, view = self.send("GET", self.url)
                assert status == 200, view
                rnd = view["round"]
                over = rnd is None or rnd["status"] == "over"
                if view["match"]["status"] != "in-progress":
                    self.check()
                    self.create()
                    continue
                if over:
                    status, dealt = self.send("POST", f"{self.url}/rounds", self.host)
                    if status == 201:
                        self.ack((int(dealt["round"]), 0, -1))
                    else:
                        self.check()
                    continue
                if not self.move(view):
                    self.check()
        except Exception as error:  # the drill reports it
            self.error = error
            raise
        finally:
            self.http.close()

    def move(self, view: dict[str, Any]) -> bool:
        """One move of the table as ``view`` shows it; whether it was acknowledged."""
        rnd = view["round"]
        number = rnd["number"]
        if self.game == "ship":
            exchange = rnd["exchange"]
            waiting = list(view["awaiting"]["seats"])
            if not waiting:
                return True
            seat = self.rng.choice(waiting)
            status, hand = self.send("GET", f"{self.url}/seats/{seat}", self.tokens[seat])
            cards = choose_cards(hand["hand"], 1)
            path = f"{self.url}/rounds/{number}/exchanges/{exchange}/passes/{seat}"
            status, _ = self.send("PUT", path, self.tokens[seat], {"cards": cards})
            if status == 200:
                self.ack((number, exchange, seat))
            return bool(status == 200)
        seat = view["awaiting"]["seats"][0]
        status, mine = self.send("GET", f"{self.url}/seats/{seat}", self.tokens[seat])
        if self.game == "sevens":
            turn = rnd["turn"]
            body = {"play": mine["playable"][0]} if mine["playable"] else {"pass": True}
            path = f"{self.url}/rounds/{number}/turns/{turn}"
            status, _ = self.send("PUT", path, self.tokens[seat], body)
            if status == 200:
                self.ack((number, turn, seat))
            return bool(status == 200)
        body = may_i_move(mine)
        path = f"{self.url}/rounds/{number}/moves/{rnd['move']}"
        status, _ = self.send("PUT", path, self.tokens[seat], body)
        if status == 200:
            self.ack((number, rnd["move"], seat))
        return bool(status == 200)


def may_i_move(view: dict[str, Any]) -> dict[str, Any]:
    """A legal May I? move from a seat view's hints that never opens a May
    I? window: take the discard, draw, lay down the contract offered, lay
    off, discard the first card that may be discarded, or say done."""
    may = view["may"]
    if "take_discard" in may:
        return {"take_discard": True}
    if "draw" in may:
        return {"draw": True}
    if "lay_down" in may and view.get("contract"):
        return {"lay_down": view["contract"]}
    if "lay_off" in may and view["lay_offs"]:
        card, ids = sorted(view["lay_offs"].items())[0]
        return {"lay_off": {"card": card, "meld": ids[0]}}
    if "discard" in may:
        return {"discard": view["discardable"][0]}
    return {"done": True}


# A drill -----------------------------------------------------------------------


@dataclass
class Failover:
    """One failover: its kind, when it began (monotonic s), when every
    Sentinel named the new primary and when every table had a move
    acknowledged again; then the figures of the module docstring."""

    kind: str
    began: float
    switched: float
    back: float
    refused_s: float = 0.0
    unready_s: float = 0.0
    ready_while_refused_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "switched_after_s": round(self.switched - self.began, 2),
            "back_after_s": round(self.back - self.began, 2),
            "refused_s": round(self.refused_s, 2),
            "unready_s": round(self.unready_s, 2),
            "ready_while_refused_s": round(self.ready_while_refused_s, 2),
        }


def _union(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _length(spans: list[tuple[float, float]]) -> float:
    return sum(end - start for start, end in spans)


def _overlap(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> float:
    total = 0.0
    for s1, e1 in a:
        for s2, e2 in b:
            total += max(0.0, min(e1, e2) - max(s1, s2))
    return total


def figures_of(failover: Failover, log: Log, until: float) -> None:
    """Fill ``failover``'s figures from ``log``, over ``[began, until]``."""
    start = failover.began
    with log.lock:
        moves = list(log.moves)
        ready = list(log.ready)
    refused = _union(
        [(s, e) for s, e, status in moves if status in (0, 503) and start <= e <= until]
    )
    # Between two reads that agree, /readyz said so; a change between
    # two reads is counted on neither side (it came somewhere between).
    unready: list[tuple[float, float]] = []
    green: list[tuple[float, float]] = []
    for (t1, first), (t2, second) in zip(ready, ready[1:], strict=False):
        if t2 < start or t1 > until or (first == 200) != (second == 200):
            continue
        (green if first == 200 else unready).append((max(t1, start), min(t2, until)))
    failover.refused_s = _length(refused)
    failover.unready_s = _length(_union(unready))
    failover.ready_while_refused_s = _overlap(refused, _union(green))


@dataclass
class Drill:
    """What :func:`drill` found: the failovers, the moves acknowledged, the
    acknowledged moves lost, and the tables that had a move acknowledged
    after the last failover."""

    failovers: list[Failover]
    acknowledged: int
    lost: int
    played_on: int
    statuses: dict[int, int]
    lost_moves: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)
    """The first lost moves of each table that lost some: (round, step, seat)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "failovers": [f.to_json() for f in self.failovers],
            "acknowledged": self.acknowledged,
            "lost": self.lost,
            "tables": len(GAMES),
            "played_on": self.played_on,
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "lost_moves": self.lost_moves,
        }


def _read_ready(base: str, log: Log, stop: threading.Event) -> None:
    host, _, port = base.removeprefix("http://").partition(":")
    while not stop.is_set():
        at = time.monotonic()
        connection = http.client.HTTPConnection(host, int(port), timeout=2)
        try:
            connection.request("GET", "/readyz")
            answer = connection.getresponse()
            answer.read()
            status = answer.status
        except (OSError, http.client.HTTPException):
            status = 0
        finally:
            connection.close()
        with log.lock:
            log.ready.append((at, status))
        stop.wait(0.05)


def _until(what: Callable[[], bool], timeout: float, why: str) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        if time.monotonic() > deadline:
            raise RuntimeError(why)
        time.sleep(0.05)


def drill(
    redis_set: RedisSet,
    base: str,
    kind: str,
    times: int = 2,
    play_s: float = 3.0,
    seed: int = 0,
    on_failover: Callable[[int], None] = lambda n: None,
) -> Drill:
    """Six tables played on ``base`` while the primary is failed over
    ``times`` times (``kind``: ``"manual"``, ``SENTINEL FAILOVER``; ``"kill"``,
    SIGKILL and restart), each after ``play_s`` of play; see the module."""
    log = Log()
    players = [Player(game, base, random.Random(seed + i), log) for i, game in enumerate(GAMES)]
    for p in players:
        p.create()
    stop, reading = threading.Event(), threading.Event()
    threads = [threading.Thread(target=p.play, args=(stop,), daemon=True) for p in players]
    reader = threading.Thread(target=_read_ready, args=(base, log, reading), daemon=True)
    failovers: list[Failover] = []
    try:
        reader.start()
        for t in threads:
            t.start()
        for n in range(times):
            time.sleep(play_s)
            began = time.monotonic()
            before = redis_set.failover() if kind == "manual" else redis_set.kill_primary()
            on_failover(n)
            redis_set.wait_switched(before)
            switched = time.monotonic()
            counts = [p.answered for p in players]
            if kind == "kill":
                redis_set.restart(before)

            def played(counts: list[int] = counts) -> bool:
                if any(getattr(p, "error", None) is not None for p in players):
                    raise RuntimeError(
                        f"a player failed: {[p.__dict__.get('error') for p in players]}"
                    )
                return all(p.answered > c for p, c in zip(players, counts, strict=True))

            _until(played, 60, "the tables did not play on after the failover")
            failovers.append(Failover(kind, began, switched, time.monotonic()))
            redis_set.wait_replicas(2, 60)
        time.sleep(play_s)
        counts = [p.answered for p in players]
        _until(
            lambda: all(p.answered > c for p, c in zip(players, counts, strict=True)),
            60,
            "the tables stopped playing",
        )
    finally:
        stop.set()
        for t in threads:
            t.join(60)
        reading.set()
        reader.join(10)
    for i, failover in enumerate(failovers):
        following = failovers[i + 1].began if i + 1 < len(failovers) else time.monotonic()
        figures_of(failover, log, following)
    for p in players:
        if p.error is not None:
            raise RuntimeError(f"a {p.game} player failed") from p.error
        p.check()
        p.http.close()
    statuses: dict[int, int] = {}
    for _, _, status in log.moves:
        statuses[status] = statuses.get(status, 0) + 1
    return Drill(
        failovers,
        sum(p.answered for p in players),
        sum(len(p.lost) for p in players),
        sum(p.answered > 0 for p in players),
        statuses,
        {f"{i}:{p.game}": sorted(p.lost)[:10] for i, p in enumerate(players) if p.lost},
    )


# The bench -----------------------------------------------------------------------

LOST_LIMIT = 0
"""Acknowledged moves a failover may lose with ``REDIS_WAIT_REPLICAS=all``."""
READY_WHILE_REFUSED_LIMIT_S = 1.0
"""How long ``/readyz`` may say 200 while moves are refused, per failover (a
look of the watch, 0.5 s, and a wait, 0.3 s, late)."""


def one_at_a_time(url: str, rounds: int = 4, seats: int = 7) -> dict[str, float]:
    """A pass's median time (ms, in this process, one request at a time)
    behind the Sentinels of ``url`` with ``REDIS_WAIT_REPLICAS`` 0, 1 and
    ``all`` (both replicas), over ``rounds`` rounds of each, alternated."""
    from service import create_app
    from service.config import Settings

    from . import redis_cost
    from .replicas import pass_times

    apps = {}
    for wait in ("0", "1", "all"):
        settings = Settings.from_env(
            {**redis_cost.ONE_ADDRESS_ENV, **WAIT_ENV},
            redis_url=url,
            table_ttl_seconds=3600,
            redis_wait_replicas=wait,
        )
        apps[wait] = create_app(settings).test_client()
    times = pass_times(apps, rounds, seats)
    for client in apps.values():
        watch = client.application.extensions["referee"].store.acknowledgement.watch
        if watch is not None:
            watch.stop()
    return {name: statistics.median(found) for name, found in times.items()}


def measure(
    folder: Path, env: dict[str, str], log: Callable[[str], None], quick: bool = False
) -> dict[str, Any]:
    """The drills of the module docstring with ``REDIS_WAIT_REPLICAS=all``
    (and, unless ``quick``, the planned one with ``1``, the setting advised
    before), each on a Redis set and a gunicorn of its own; and a pass's
    time one at a time with each setting. ``quick``: one failover of each
    kind, not two."""
    from .processes import Gunicorn
    from .redis_cost import ONE_ADDRESS_ENV

    found: dict[str, Any] = {}
    drills = [("all", "manual"), ("all", "kill")] + ([] if quick else [("1", "manual")])
    for wait, kind in drills:
        name = f"{kind}/{wait}"
        log(f"failover: 2 x {'SENTINEL FAILOVER' if kind == 'manual' else 'SIGKILL'}, "
            f"REDIS_WAIT_REPLICAS={wait}, six tables…")  # fmt: skip
        redis_set = RedisSet(folder / name.replace("/", "-")).start()
        try:
            if "sequential" not in found:
                found["sequential"] = one_at_a_time(redis_set.url, rounds=2 if quick else 4)
            service_env = {
                **env,
                **ONE_ADDRESS_ENV,
                **WAIT_ENV,
                "REDIS_URL": redis_set.url,
                "REDIS_WAIT_REPLICAS": wait,
            }
            log_file = folder / f"service-{name.replace('/', '-')}.log"
            service = Gunicorn("service.wsgi:app", service_env, log_file, "/readyz").start()
            try:
                result = drill(
                    redis_set,
                    service.base,
                    kind,
                    times=1 if quick else 2,
                    play_s=2.0 if quick else 4.0,
                )
            finally:
                service.stop()
        finally:
            redis_set.stop()
        found[name] = result.to_json()
        log(
            f"failover {name}: {result.acknowledged} acknowledged, {result.lost} lost; refused "
            + ", ".join(f"{f.refused_s:.1f} s" for f in result.failovers)
        )
    return found


def rows(figures: dict[str, Any]) -> list[tuple[str, str]]:
    """The report's rows: figure, value."""
    found = figures.get("failover")
    if not found:
        return []
    one = found["sequential"]
    out = [
        (
            "a pass, one at a time, REDIS_WAIT_REPLICAS 0 / 1 / all (two replicas)",
            f"{one['0']:.2f} / {one['1']:.2f} / {one['all']:.2f} ms",
        )
    ]
    for name, drilled in found.items():
        if name == "sequential":
            continue
        kind, wait = name.split("/")
        what = "SENTINEL FAILOVER" if kind == "manual" else "SIGKILL of the primary"
        out.append(
            (
                f"{len(drilled['failovers'])} x {what}, REDIS_WAIT_REPLICAS={wait}: "
                "acknowledged moves, lost",
                f"{drilled['acknowledged']}, {drilled['lost']}",
            )
        )
        for i, f in enumerate(drilled["failovers"], 1):
            out.append(
                (
                    f"… failover {i}: moves refused / /readyz 503 / /readyz 200 while refused",
                    f"{f['refused_s']:.1f} / {f['unready_s']:.1f} / "
                    f"{f['ready_while_refused_s']:.2f} s (Sentinels switched after "
                    f"{f['switched_after_s']:.1f} s)",
                )
            )
    return out


def targets(figures: dict[str, Any]) -> list[Target]:
    """Issue 41's failover targets; none for a run without the drills."""
    found = figures.get("failover")
    if not found:
        return []
    drilled = [found[k] for k in ("manual/all", "kill/all") if k in found]
    failovers = [f for d in drilled for f in d["failovers"]]
    times = {k: len(found[k]["failovers"]) for k in ("manual/all", "kill/all") if k in found}
    return [
        Target(
            f"acknowledged moves lost over {times.get('manual/all', 0)} x SENTINEL FAILOVER "
            f"and {times.get('kill/all', 0)} x SIGKILL",
            float(sum(d["lost"] for d in drilled)),
            LOST_LIMIT,
            True,
            "",
            "REDIS_WAIT_REPLICAS=all, six tables of the three games",
        ),
        Target(
            "/readyz 200 while moves are refused, per failover (max)",
            max((f["ready_while_refused_s"] for f in failovers), default=float("nan")),
            READY_WHILE_REFUSED_LIMIT_S,
            True,
            " s",
            "REDIS_WAIT_REPLICAS=all",
        ),
    ]


def main() -> None:  # pragma: no cover - a person's run
    """``python -m benchmarks.failover [--quick]``: this part alone; prints the figures."""
    import sys
    import tempfile

    from .processes import gunicorn_env

    with tempfile.TemporaryDirectory() as tmp:
        found = measure(Path(tmp), gunicorn_env(), print, quick="--quick" in sys.argv)
    print(json.dumps(found, indent=1))
    for name, value in rows({"failover": found}):
        print(f"{name}: {value}")


if __name__ == "__main__":  # pragma: no cover
    main()
