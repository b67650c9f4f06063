"""A TCP proxy between a service and its Redis, for the tests that must stop
a real worker at an exact point of a move: it passes every byte through,
and, when told, holds the replies to one command until released, or acts
(SIGKILLs the workers) instead of passing a command on."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable

from benchmarks.processes import free_port


class RedisProxy:
    """Listens on ``port`` and forwards each connection to ``127.0.0.1:target``."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self._server = socket.create_server(("127.0.0.1", self.port))
        self._lock = threading.Lock()
        self._hold: tuple[bytes, ...] | None = None
        self._held = threading.Event()
        self._release = threading.Event()
        self._instead: tuple[bytes, Callable[[], None]] | None = None
        self.acted = threading.Event()
        self._sockets: list[socket.socket] = []
        self._open = threading.Event()  # new connections reach the target
        self._open.set()
        threading.Thread(target=self._accept, daemon=True).start()

    def hold_connections(self) -> None:
        """New connections are accepted but reach nothing (what they send
        waits) until :meth:`let_connections`: a Redis slow to come back."""
        self._open.clear()

    def let_connections(self, target: int | None = None) -> None:
        """New connections, and those held, reach the target (``target``: a
        new one from now on, e.g. a promoted replica behind the same endpoint)."""
        if target is not None:
            self.target = target
        self._open.set()

    def cut(self) -> None:
        """Close every connection passed on so far (as a dying server does)."""
        with self._lock:
            sockets, self._sockets = self._sockets, []
        _close(*sockets)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def hold_reply(self, *markers: bytes) -> threading.Event:
        """Hold the replies on the next connection that sends a command
        holding every one of ``markers``, until :meth:`release`; the event
        returned is set once it is held."""
        with self._lock:
            self._hold = markers
        return self._held

    def release(self) -> None:
        self._release.set()

    def instead_of(self, marker: bytes, act: Callable[[], None]) -> None:
        """The next command holding ``marker`` is not passed on: ``act`` runs
        and that connection is cut."""
        with self._lock:
            self._instead = (marker, act)

    def stop(self) -> None:
        self._release.set()
        self._open.set()
        with contextlib.suppress(OSError):
            self._server.close()
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            self._open.wait(60)
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:  # the target is down: so is this connection
                _close(client)
                continue
            with self._lock:
                self._sockets += [client, upstream]
            holding = threading.Event()  # this connection's replies are held
            threading.Thread(target=self._up, args=(client, upstream, holding), daemon=True).start()
            threading.Thread(
                target=self._down, args=(upstream, client, holding), daemon=True
            ).start()

    def _up(self, client: socket.socket, upstream: socket.socket, holding: threading.Event) -> None:
        while data := _recv(client):
            with self._lock:
                hold, instead = self._hold, self._instead
                if hold is not None and all(m in data for m in hold):
                    self._hold = None
                    holding.set()
                if instead is not None and instead[0] in data:
                    self._instead = None
                else:
                    instead = None
            if instead is not None:
                instead[1]()
                self.acted.set()
                _close(client, upstream)
                return
            try:
                upstream.sendall(data)
            except OSError:
                break
        _close(client, upstream)

    def _down(
        self, upstream: socket.socket, client: socket.socket, holding: threading.Event
    ) -> None:
        while data := _recv(upstream):
            if holding.is_set():
                self._held.set()
                self._release.wait(30)
                holding.clear()
            try:
                client.sendall(data)
            except OSError:
                break
        _close(client, upstream)


def _recv(sock: socket.socket) -> bytes:
    try:
        return sock.recv(65536)
    except OSError:
        return b""


def _close(*sockets: socket.socket) -> None:
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            sock.close()
