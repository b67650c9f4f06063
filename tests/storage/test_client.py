"""The service's Redis client asks its connections whether anything is left
unread with the OS's own poll (``QuickCheckParser``), also under gevent: a
connection handed out with a stale reply on it would answer the next command
with the last one's reply."""

from __future__ import annotations

import select
import subprocess
import sys
import textwrap
import uuid

import redis

from service.storage.client import QuickCheckParser, connect

from ..conftest import RedisProcess


def _left_unread(client: redis.Redis) -> None:
    """Hand back to the pool a connection whose PING's reply is unread."""
    pool = client.connection_pool
    connection = pool.get_connection()
    connection.send_command("PING")
    ready, _, _ = select.select([connection._sock], [], [], 5)  # the reply is there
    assert ready
    pool.release(connection)


def test_a_connection_left_with_a_reply_is_not_handed_out_as_it_is(
    redis_server: RedisProcess,
) -> None:
    client = connect(redis_server.url, 5)
    key = f"test-client:{uuid.uuid4().hex}"
    client.set(key, "right", ex=60)
    _left_unread(client)
    assert client.get(key) == b"right"  # not the stale b"PONG"
    assert client.get(key) == b"right"
    client.delete(key)


def test_a_connection_that_reads_nothing_is_kept(redis_server: RedisProcess) -> None:
    client = connect(redis_server.url, 5)
    client.ping()
    connection = client.connection_pool.get_connection()
    assert isinstance(connection._parser, QuickCheckParser)
    assert connection.can_read(0) is False
    client.connection_pool.release(connection)
    again = client.connection_pool.get_connection()
    assert again is connection  # reused, not reconnected
    client.connection_pool.release(again)


def test_a_connection_closed_under_the_pool_is_made_anew(redis_server: RedisProcess) -> None:
    # What a disconnect from another thread leaves the parser holding.
    client = connect(redis_server.url, 5)
    key = f"test-client:{uuid.uuid4().hex}"
    client.set(key, "right", ex=60)
    connection = client.connection_pool.get_connection()
    connection._sock.close()
    client.connection_pool.release(connection)
    assert client.get(key) == b"right"  # not ValueError (a negative file descriptor)
    client.delete(key)


def test_under_gevent_the_check_is_the_os_poll_and_still_right(
    redis_server: RedisProcess,
) -> None:
    # As in a gunicorn gevent worker: patched after the service's imports.
    script = textwrap.dedent(
        f"""
        import select, uuid
        from service.storage.client import connect
        from gevent import monkey
        monkey.patch_all()
        from tests.storage.test_client import _left_unread
        client = connect({redis_server.url!r}, 5)
        key = f"test-client:{{uuid.uuid4().hex}}"
        client.set(key, "right", ex=60)
        connection = client.connection_pool.get_connection()
        assert connection._parser._poll is monkey.get_original("select", "poll")
        assert connection._parser._poll is not select.poll  # gevent's
        client.connection_pool.release(connection)
        _left_unread(client)
        print(client.get(key).decode())
        client.delete(key)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "right\n"
