"""One more stream's path, alone: what a process spends per stream and
commit from a commit's announcement to its bytes written, beside the floor
of a greenlet per stream (issue 39; a diagnostic, no target: the figure
with PASS/MISS is :mod:`benchmarks.stream_fanout`'s, which a busy machine's
load moves by ±30 %).

In one gevent process: ``streams`` streams of one table, each a greenlet
running the service's own :class:`~service.streams.follow.Follower` on the
process's :class:`~service.streams.hub.Hub` (its presence watch too, as a
public stream has), writing each frame as the service does under gunicorn
(one ``send`` of one HTTP/1.1 chunk, ``service.resources.streams.endpoints._Body``) to a
real TCP connection (``TCP_NODELAY``, as gunicorn sets it) that another
process reads; the table's log is a list in memory (no Redis: its one read
per commit is not per stream). Each commit appends an event and announces
it (``Hub.publish``); the next waits until every stream has written it.
The figure is this process's CPU (``time.process_time``: its Python and
the kernel's send path, loopback included) per stream and commit. The
floor is the same greenlets woken by a gevent ``Event`` each, sending the
same bytes: what a greenlet per stream costs whatever the code. Run::

    python -m benchmarks.fanout_path [--streams 200] [--commits 300]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from typing import Any

READER = """
import selectors, socket, sys
sel = selectors.DefaultSelector()
for _ in range(int(sys.argv[2])):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ)
while True:
    for key, _ in sel.select():
        if not key.fileobj.recv(65536):
            raise SystemExit
"""


def measure(streams: int, commits: int) -> dict[str, Any]:
    """The figures (µs per stream and commit): ``follower`` and ``floor``."""
    from gevent import monkey

    monkey.patch_all()
    import socket
    import threading

    import gevent

    from service.storage.store import EventPage, Snapshot
    from service.streams.follow import Cursor, Follower
    from service.streams.hub import Hub
    from service.streams.presence import Watch

    class PubSub:  # the hub's subscription, never told anything (commits are published by hand)
        def psubscribe(self, *_: Any) -> None:
            pass

        def get_message(self, timeout: float = 1.0) -> None:
            gevent.sleep(timeout)

        def close(self) -> None:
            pass

    class Client:
        def pubsub(self) -> PubSub:
            return PubSub()

    log: list[dict[str, Any]] = [{"seq": 1, "at_ms": 1, "type": "table-created"}]

    class Store:
        def events(self, table_id: str, after: int, limit: int) -> EventPage:
            return EventPage(log[after : after + limit], False, len(log), 1)

        def snapshot(self, table_id: str, after: int, limit: int) -> Snapshot:
            at = log[after - 1] if after >= 1 else None
            page = EventPage(log[after : after + limit], False, len(log), 1, 0, None, at)
            return Snapshot(page, None)  # type: ignore[arg-type]

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(streams)
    port = server.getsockname()[1]
    reader = subprocess.Popen([sys.executable, "-c", READER, str(port), str(streams)])
    try:
        conns = [server.accept()[0] for _ in range(streams)]
        for conn in conns:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        written = [0]
        done = threading.Event()

        def send(conn: Any, item: bytes) -> None:
            data = b"%X\r\n%b\r\n" % (len(item), item)
            sent = conn.send(data)
            if sent < len(data):
                conn.sendall(memoryview(data)[sent:])
            written[0] += 1
            if written[0] % streams == 0:
                done.set()

        def run(wake: Any) -> float:
            written[0] = 0
            for _ in range(20 + commits):
                if _ == 20:
                    started = time.process_time()
                done.clear()
                seq = len(log) + 1
                event = {"seq": seq, "at_ms": seq, "type": "turn-played", "seat": seq % 4}
                log.append({**event, "card": "7H", "round": 1, "turn": seq})
                wake(seq)
                if not done.wait(10):
                    raise RuntimeError(f"{written[0]} writes of {streams} a commit")
            return 1e6 * (time.process_time() - started) / commits / streams

        hub = Hub(Client())

        def follow(conn: Any) -> None:
            watch = Watch(lambda _: (0, {}), 15000)
            follower = Follower(Store(), hub, "t1", 60, 3600, None, presence=watch)  # type: ignore[arg-type]
            for item in follower.open(Cursor(len(log))):
                send(conn, item)

        greenlets = [gevent.spawn(follow, conn) for conn in conns]
        while written[0] < streams:
            gevent.sleep(0.01)
        follower_us = run(lambda seq: hub.publish("t1", seq))
        gevent.killall(greenlets)

        events = [threading.Event() for _ in conns]
        frame = b"id: 12.0123abcd\ndata: " + json.dumps(log[-1]).encode() + b"\n\n"

        def bare(conn: Any, event: Any) -> None:
            while True:
                event.wait()
                event.clear()
                send(conn, frame)

        greenlets = [gevent.spawn(bare, c, e) for c, e in zip(conns, events, strict=True)]
        gevent.sleep(0.1)

        def wake_all(_: int) -> None:
            for event in events:
                event.set()

        floor_us = run(wake_all)
        gevent.killall(greenlets)
        hub.stop()
    finally:
        reader.kill()
        reader.wait()
        server.close()
    return {
        "streams": streams,
        "commits": commits,
        "follower_us": follower_us,
        "floor_us": floor_us,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--commits", type=int, default=300)
    args = parser.parse_args(argv)
    json.dump(measure(args.streams, args.commits), sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
