"""What one client may hold of a gunicorn worker (``service.workers``
uses both; gevent's worker class): its connections per client address
(:class:`Connections`, ``CONNECTIONS_PER_ADDRESS``), the size of a request's
head and the time its request may take to arrive and the time its answer may
wait for it to read (:class:`ReadDeadline`, :data:`HEAD_MAX`,
``REQUEST_READ_TIMEOUT_SECONDS``, ``RESPONSE_WRITE_TIMEOUT_SECONDS``). Issue
39: from one address, slow request bodies held every connection of an
instance; clients that pipelined large answers and read nothing held their
connections and send buffers for good; heads of 800 KB sent in pieces cost
the worker 650 ms each."""

from __future__ import annotations

import errno
import logging
import socket
import struct
import time
from typing import Any, NoReturn

from gunicorn.http.errors import LimitRequestHeaders
from werkzeug.exceptions import RequestTimeout

from .addresses import peer_key

_log = logging.getLogger("gunicorn.error")

HEAD_MAX = 40 * 1024
"""The most bytes a request's head (its request line and header fields) may
take; past it, 431 ``headers-too-large`` and the connection closes. nginx's
default (``large_client_header_buffers 4 8k``) allows 32 KiB, and a proxy
adds a few fields. gunicorn's own limits allow 100 fields of 8 KiB, 800 KB,
whose Python parser copies and rescans the whole buffer at each read: the
eleventh attacker's 777 KB heads cost 85 ms each sent whole, 650 ms sent in
1,000-byte pieces, and ten connections of them held another address's
``/readyz`` a second."""

HEAD_PIECE = 16 * 1024
"""What one read of a head gathers (or up to the head's end) before the
parser sees it, so that a head sent in small pieces is parsed in a few
reads, not one per piece."""

_HEAD_END = b"\r\n\r\n"


def _bare_lf(data: bytes) -> bool:
    return data.count(b"\n") != data.count(b"\r\n")


class ReadDeadline:
    """A client's socket whose reads give up ``seconds`` after the first
    byte of the request being read (the HTTP parser's and the body's, all
    through :meth:`recv`): then :class:`werkzeug.exceptions.RequestTimeout`
    (408), and the connection reads as closed from then on, so that it ends
    once the answer is out. The wait for a request's first byte is not
    bounded here (gunicorn's ``keepalive`` bounds it); a peek (``flags``:
    a stream asking whether its client left) has no deadline.
    :meth:`next_request` starts the next request's clock. ``seconds`` 0:
    no read deadline.

    A head (what is read before gunicorn hands the request on: ``request``
    unset) is read in pieces of :data:`HEAD_PIECE` and may take
    :data:`HEAD_MAX` bytes; past them, ``LimitRequestHeaders`` (431).

    With ``write_seconds``, a write (an answer, a stream's frame) that makes
    no progress for that long, its client reading nothing, closes the
    connection (``BrokenPipeError``, which gunicorn takes for a client gone):
    a slow reader that reads goes on, one that stopped does not hold its
    connection and its send buffer."""

    __slots__ = (
        "_sock",
        "_seconds",
        "_deadline",
        "_write_seconds",
        "_head",
        "expired",
        "request",
        "sendall",
        "send",
        "fileno",
    )

    def __init__(self, sock: Any, seconds: float, write_seconds: float = 0.0) -> None:
        self._sock = sock
        self._seconds = seconds
        self._write_seconds = write_seconds
        self._deadline: float | None = None
        self._head = 0  # bytes of the head being read
        self.expired = False
        self.request: Any = None
        """gunicorn's request being read (its answer then closes the connection)."""
        # The writes, called once per answer or frame, without __getattr__.
        self.sendall = self._sendall if write_seconds > 0 else sock.sendall
        self.send = self._send if write_seconds > 0 else sock.send
        self.fileno = sock.fileno

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)

    def recv(self, size: int, flags: int = 0) -> bytes:
        if flags:
            return bytes(self._sock.recv(size, flags))
        data = self._read(size)
        if self.request is not None or not data:
            return data  # a body (gunicorn parsed the head), or the end
        # A head: gathered to HEAD_PIECE or its end, counted against HEAD_MAX.
        pieces, got, window = [data], len(data), data
        # Not past a bare LF either: gunicorn refuses it at once (400).
        while _HEAD_END not in window and got < HEAD_PIECE and not _bare_lf(window):
            more = self._read(size)
            if not more:
                break
            pieces.append(more)
            got += len(more)
            window = window[-3:] + more
        end = window.find(_HEAD_END)
        self._head += got if end < 0 else got - (len(window) - end - 4)
        if self._head > HEAD_MAX:
            raise LimitRequestHeaders(f"the head is over {HEAD_MAX} bytes")
        return b"".join(pieces)

    def _read(self, size: int) -> bytes:
        """One read, within the request's deadline."""
        if not self._seconds:
            return bytes(self._sock.recv(size))
        if self.expired:
            return b""
        if self._deadline is None:
            data = bytes(self._sock.recv(size))
            self._deadline = time.monotonic() + self._seconds
            return data
        left = self._deadline - time.monotonic()
        if left <= 0:
            self._expire()
        self._sock.settimeout(left)
        try:
            return bytes(self._sock.recv(size))
        except TimeoutError:
            self._expire()
        finally:
            self._sock.settimeout(None)

    def _send(self, data: Any, flags: int = 0) -> int:
        """One send, given up after ``write_seconds`` without progress."""
        self._sock.settimeout(self._write_seconds)
        try:
            return int(self._sock.send(data, flags))
        except TimeoutError:
            _log.info(
                "Closing a connection whose client read nothing for %g s "
                "(RESPONSE_WRITE_TIMEOUT_SECONDS)",
                self._write_seconds,
            )
            # Closed with a reset: what the kernel still holds for it is
            # dropped, not kept for a client that reads nothing.
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            raise BrokenPipeError(errno.EPIPE, "write deadline") from None
        finally:
            self._sock.settimeout(None)

    def _sendall(self, data: Any, flags: int = 0) -> None:
        """All of ``data``, each send within the write deadline."""
        view = memoryview(data).cast("B")
        while view:
            view = view[self._send(view, flags) :]

    def _expire(self) -> NoReturn:
        self.expired = True
        if self.request is not None:
            self.request.must_close = True  # "Connection: close" on the 408
        raise RequestTimeout(
            f"The request's head and body did not arrive within {self._seconds:g} s "
            "(REQUEST_READ_TIMEOUT_SECONDS)."
        )

    def next_request(self) -> None:
        """The request was answered: the next one's clock starts at its first
        byte, and its head is counted from there."""
        self._deadline = None
        self._head = 0
        self.request = None


class Connections:
    """Open connections per client address in one worker process, counted at
    accept time (see the module docstring)."""

    def __init__(self, per_address: int) -> None:
        self.per_address = per_address
        self.held: dict[str, int] = {}

    def take(self, peer: Any) -> str | None:
        """Count a connection of ``peer`` (gunicorn's address: a tuple whose
        first item is the IP, or a Unix socket's name); its key, to give it
        back with :meth:`give`, or None when that address is at its cap."""
        key = peer_key(peer)
        held = self.held.get(key, 0)
        if held >= self.per_address:
            return None
        self.held[key] = held + 1
        return key

    def give(self, key: str) -> None:
        left = self.held[key] - 1
        if left:
            self.held[key] = left
        else:
            del self.held[key]
