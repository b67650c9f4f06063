"""The stream hub on sharded feeds (``REDIS_PUBSUB=sharded``) when a Redis
Cluster changes under it: a slot that moves to another node, a primary that
dies. Each test has a cluster of its own (Redis 7: sharded pub/sub)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from redis.cluster import RedisCluster

from service.storage import feeds
from service.storage.client import connect
from service.streams.hub import Hub, Waiter, feed_channel

from ..cluster import RedisClusterProcesses, redis_major, shard_subscribers

pytestmark = pytest.mark.skipif(redis_major() < 7, reason="sharded pub/sub is Redis 7.0's")


@pytest.fixture()
def cluster(tmp_path: Path) -> Iterator[RedisClusterProcesses]:
    started = RedisClusterProcesses(tmp_path / "cluster").start()
    yield started
    started.stop()


def sharded_client(cluster: RedisClusterProcesses) -> RedisCluster:
    client = connect(cluster.url, 2)
    feeds.choose(client, True)
    return client  # type: ignore[return-value]


def woken(client: RedisCluster, waiter: Waiter, table_id: str, within: float = 2.0) -> bool:
    """Whether a commit announced on the table's feed now wakes ``waiter``."""
    waiter.wait(0)  # forget an earlier wake
    client.spublish(feed_channel(table_id), 5)
    return waiter.wait(within)


def test_a_table_whose_slot_moves_is_followed_on_its_new_node(
    cluster: RedisClusterProcesses,
) -> None:
    client = sharded_client(cluster)
    hub = Hub(client)
    table_id = "moving"
    channel = feed_channel(table_id)
    source = client.get_node_from_key(channel)
    target = next(p for p in cluster.ports if p != source.port)
    with hub.follow(table_id) as waiter:
        assert woken(client, waiter, table_id)
        slot = client.keyslot(channel)
        moved_to = redis.Redis(port=target).cluster("MYID")
        for port in cluster.ports:  # the slot now belongs to the target
            redis.Redis(port=port).execute_command("CLUSTER SETSLOT", slot, "NODE", moved_to)
        # The source ends the subscription by itself; the hub subscribes on
        # the target and wakes the stream (a commit may have gone by).
        assert waiter.wait(10)
        mover = connect(cluster.url, 2)  # a client that knows the new owner
        deadline = time.monotonic() + 10
        while shard_subscribers(target, channel) != 1:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert woken(mover, waiter, table_id)  # type: ignore[arg-type]
    hub.stop()


def table_on(client: RedisCluster, port: int) -> str:
    """A new table id whose feed is on ``port``'s shard (by the client's slot map)."""
    feeds_on = (t for t in (f"new{i}" for i in range(1000)))
    return next(t for t in feeds_on if client.get_node_from_key(feed_channel(t)).port == port)


def test_a_dead_primary_holds_up_no_other_shard(cluster: RedisClusterProcesses) -> None:
    client = sharded_client(cluster)
    by_port: dict[int, list[str]] = {port: [] for port in cluster.ports}
    n = 0
    while min(len(tables) for tables in by_port.values()) < 2:
        table_id = f"t{n}"
        n += 1
        by_port[client.get_node_from_key(feed_channel(table_id)).port].append(table_id)
    hub = Hub(client)
    follows = {t: hub.follow(t) for tables in by_port.values() for t in tables[:2]}
    waiters = {t: follow.__enter__() for t, follow in follows.items()}
    dead, *alive = cluster.ports
    healthy = [by_port[port][0] for port in alive]
    assert [woken(client, waiters[t], t) for t in healthy] == [True, True]
    cluster.nodes[0].kill()
    # One stream of the dead shard's tables ends (its feed cannot be left
    # there), and a stream of another of its tables opens (its feed cannot be
    # followed). The healthy shards' tables are still woken at once.
    follows[by_port[dead][0]].__exit__(None, None, None)
    with hub.follow(table_on(client, dead)):
        pass
    for _ in range(3):
        assert [woken(client, waiters[t], t) for t in healthy] == [True, True]
        time.sleep(0.5)
    fresh = table_on(client, alive[0])
    started = time.monotonic()
    with hub.follow(fresh) as waiter:  # a new table of a healthy shard
        assert time.monotonic() - started < 0.5
        assert woken(client, waiter, fresh)
    hub.stop()


def test_a_stream_whose_wait_ran_out_is_woken_when_its_subscription_holds(
    cluster: RedisClusterProcesses,
) -> None:
    """A node that hangs (stopped, not gone) confirms the subscription late:
    the stream, which began reading after its wait in ``follow`` ran out, is
    woken then, as a commit may have gone by meanwhile."""
    client = sharded_client(cluster)
    hub = Hub(client)
    node = cluster.nodes[0]
    assert node.proc is not None
    table_id = table_on(client, node.port)
    os.kill(node.proc.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        with hub.follow(table_id) as waiter:
            assert time.monotonic() - started >= 0.9  # ran out (SUBSCRIBE_WAIT_SECONDS)
            waiter.wait(0)
            os.kill(node.proc.pid, signal.SIGCONT)
            assert waiter.wait(15)
            assert woken(client, waiter, table_id)
    finally:
        os.kill(node.proc.pid, signal.SIGCONT)
    hub.stop()
