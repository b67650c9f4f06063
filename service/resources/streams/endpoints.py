"""Server-sent event streams of a table (HTTP only; the frames are
:mod:`service.streams.follow`'s, the fan-out :mod:`service.streams.hub`'s).

- ``GET /v1/tables/{id}/stream``: the public events, to anyone.
- ``GET /v1/tables/{id}/seats/{seat}/stream``: the public events and, after
  each commit, the seat's own view; with the seat's token in
  ``Authorization``, or (a browser's EventSource cannot send a header) with
  ``?ticket=`` from ``POST …/seats/{seat}/tickets``.

Where a stream starts: after ``Last-Event-ID`` (what an EventSource sends
when it reconnects), else ``?after=``, else the start of the log.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import select
import socket
from collections.abc import Callable, Iterator
from typing import Any

import redis
from flask import Response, current_app, request, stream_with_context, url_for
from flask.views import MethodView
from gunicorn.http.wsgi import Response as GunicornResponse
from marshmallow import fields, validate

from ... import logs, metrics
from ...edge import auth, presence, stream_caps
from ...edge.common import SECURITY, RefereeBlueprint, check_table_id, documented, no_table, referee
from ...edge.problems import Problem
from ...spec.fields import DocumentedSchema, StrictSchema
from ...storage.client import os_poll
from ...storage.store import Loaded, TableNotFound, table_key
from ...streams.follow import (
    GIVE_UP_RETRY_MS,
    RETRY_MS,
    Cursor,
    Follower,
    SeatView,
    frame,
    parse_cursor,
)
from ...streams.hub import Hub
from ...streams.presence import Watch
from ..moves import load
from ..moves import seat as seat_answer
from .schemas import STREAM_TEXT, SeatStreamFrameSchema, TableStreamFrameSchema

blp = RefereeBlueprint(
    "streams",
    __name__,
    url_prefix="/v1/tables",
    description="Server-sent event streams of a table: its public events, a seat's own.",
)

EVENT_STREAM = "text/event-stream"

TICKET_BYTES = 32
"""A stream ticket's random bytes (256 bits, from the CSPRNG)."""

NO_STORE = {"Cache-Control": "no-store"}

STREAM_HEADERS = {
    "Cache-Control": "no-cache, no-store",
    "X-Accel-Buffering": "no",  # nginx: pass each frame on at once
}


class StreamQuerySchema(StrictSchema):
    """Where a stream starts, and a seat stream's ticket."""

    after = fields.String(
        validate=validate.Regexp(r"^[0-9]{1,16}(\.[0-9a-f]{8})?$"),
        metadata={
            "description": "Start after this event: a `seq` (a table's `last_event`) or a "
            "stream id (`<seq>.<fingerprint>`). A `Last-Event-ID` header wins over it."
        },
    )


class SeatStreamQuerySchema(StreamQuerySchema):
    ticket = fields.String(
        validate=validate.Length(max=100),
        metadata={
            "description": "A ticket from `POST …/seats/{seat}/tickets`, for a browser's "
            "EventSource (which cannot send `Authorization`). Single use."
        },
    )


class TicketSchema(DocumentedSchema):
    """A single-use ticket that opens one stream of a seat."""

    ticket = fields.String(metadata={"description": "Pass it as `?ticket=` once."})
    expires_in = fields.Integer(metadata={"description": "Seconds it may wait to be used."})
    stream = fields.String(metadata={"description": "The stream's URL with the ticket."})


def hub() -> Hub:
    """The process's :class:`Hub`, made on first use."""
    found = current_app.extensions.get("referee_hub")
    if found is None:
        rendered = metrics.current().stream_rendered
        found = current_app.extensions["referee_hub"] = Hub(
            referee().store.client, on_render=rendered
        )
    return found


def ticket_key(table_id: str, seat: int, ticket: str) -> str:
    """Where a seat's ticket is kept: under its SHA-256, never in clear. The
    seat is in the key, so that a ticket shown at another seat finds nothing
    (and is not spent: a refused request changes nothing)."""
    digest = hashlib.sha256(ticket.encode()).hexdigest()
    return f"{table_key(table_id)[: -len(':table')]}:ticket:{seat}:{digest}"


def _cursor(query: dict[str, Any]) -> Cursor:
    text = request.headers.get("Last-Event-ID") or query.get("after")
    if text is None:
        return Cursor(0)
    cursor = parse_cursor(text)
    if cursor is None:
        raise Problem(
            422,
            "cursor-invalid",
            "Last-Event-ID or after must be an event's seq or a stream id (<seq>.<8 hex>).",
            [{"pointer": "/after", "detail": "not a seq or a stream id"}],
        )
    return cursor


def _stream(
    table_id: str,
    cursor: Cursor,
    release: Callable[[], None],
    seat: int | None = None,
    held: str | None = None,
) -> Response:
    """The stream's answer; ``release`` (its place, :func:`_room`, and a
    seat stream's leases) is given back when the answer closes, or now when
    the stream cannot open. A public stream takes its leases
    (:func:`.stream_caps.lease`) once its table is known to be there."""
    releases = [release]
    try:
        frames = _open(table_id, cursor, seat, held)
        if seat is None:
            releases.append(stream_caps.lease(table_id, None))
        return _answer(frames, stream_caps.both(*releases), prime=True)
    except BaseException:
        stream_caps.both(*releases)()
        raise


def _open(table_id: str, cursor: Cursor, seat: int | None, held: str | None) -> Iterator[bytes]:
    settings = referee().settings
    process_hub = hub()
    follower = Follower(
        referee().store,
        process_hub,
        table_id,
        settings.stream_heartbeat_seconds,
        settings.stream_lifetime_seconds,
        None if seat is None or held is None else _seat_view(seat, held),
        presence=_watch(table_id, seat),
        seat=seat,
        holder=held,
        peer_gone=peer_gone(request.environ.get("gunicorn.socket")),
    )
    try:
        return follower.open(cursor)
    except TableNotFound:
        raise no_table() from None


def peer_gone(sock: Any) -> Callable[[], bool]:
    """Whether the client of the connection ``sock`` (gunicorn's socket of
    the request; ``None`` elsewhere: never) has closed its end: it sent FIN
    or RST, which a stream's client never does while it reads. Asked with a
    poll that does not wait (the OS's, also under gevent) and a peek."""
    if sock is None:
        return lambda: False
    try:
        fd = sock.fileno()
    except OSError:
        return lambda: True
    make_poll = os_poll()
    closed = getattr(select, "POLLRDHUP", 0) | select.POLLHUP | select.POLLERR

    def gone() -> bool:
        poller = make_poll()
        try:
            poller.register(fd, select.POLLIN | closed)
            ready = poller.poll(0)
        except (OSError, ValueError):  # closed under us
            return True
        if not ready:
            return False
        if ready[0][1] & closed:
            return True
        try:  # readable: a FIN reads as b"" (the client sends nothing else on a stream)
            return bool(sock.recv(1, socket.MSG_PEEK) == b"")
        except OSError:
            return True

    return gone


def _watch(table_id: str, seat: int | None) -> Watch:
    """The stream's presence events; a seat's own stream keeps it connected."""
    store, process_hub = presence.presence(), hub()

    def read(shared: Any) -> tuple[int, dict[int, int]]:
        if shared is not None:  # one read for the process's streams of the table
            return process_hub.shared(table_id, shared, lambda: store.read(table_id))
        return store.read(table_id)

    keepalive = None
    if seat is not None:

        def keepalive() -> None:
            presence.mark(table_id, seat, force=True)

    return Watch(read, store.window_ms, keepalive)


def _room() -> Callable[[], None]:
    """A place for one more stream of this process (call the function it
    returns to give it back); 503 ``streams-full`` when it holds as many
    streams as it may (taken before a ticket is spent, so that a refused
    ticket can be used again). See :mod:`.stream_caps`."""
    return stream_caps.place(hub().reserve)


START_RESPONSE = "referee.start_response"
"""Where the WSGI server's ``start_response`` is kept in a request's environ
(:func:`_keep_start_response`): gunicorn's is a method of its answer."""


@blp.record_once
def _keep_start_response(state: Any) -> None:
    """Keep each request's ``start_response`` in its environ, so that a
    stream can find gunicorn's answer it writes to (:class:`_Body`)."""
    inner = state.app.wsgi_app

    def wsgi_app(environ: dict[str, Any], start_response: Any) -> Any:
        environ[START_RESPONSE] = start_response
        return inner(environ, start_response)

    state.app.wsgi_app = wsgi_app


def _server_answer() -> Any:
    """gunicorn's answer to this request (``gunicorn.http.wsgi.Response``),
    ``None`` under another server (the tests' client, werkzeug's)."""
    start = request.environ.get(START_RESPONSE)
    answer = getattr(start, "__self__", None)
    return answer if isinstance(answer, GunicornResponse) else None


class _Body:
    """A stream's WSGI iterable: its frames as bytes, handed to the server as
    they are (``direct_passthrough``: no werkzeug encoding and closing
    iterators around them; an idle stream's greenlet keeps the C stack of
    every iterator it waits under). :meth:`close` ends the frames and then
    calls ``release`` (the stream's place, :func:`_room`), as the server
    does when the answer ends or its client goes.

    Under gunicorn, once its answer's head is written and the answer is
    chunked (HTTP/1.1, a body), the frames after the first are written to
    its socket here, each one chunk, as gunicorn's own write would (its
    framing and its count of bytes sent): one ``send`` of bytes rendered
    once for every stream of the commit, where gunicorn's write and gevent's
    ``sendall`` cost as much again (one more stream on a busy table costs
    this write, issue 39). The server still writes the head, the first
    frames and the last chunk, and closes.

    Its first frame is made in the view (:meth:`prime`), so that a Redis
    that fails or is busy then is the view's 503, not the server's 500; one
    that fails later ends the stream with its ``retry`` (the EventSource
    comes back with ``Last-Event-ID`` and misses nothing)."""

    __slots__ = ("_frames", "_release", "_server", "_first", "_ended", "_metrics")

    def __init__(
        self, frames: Iterator[bytes], release: Callable[[], None], server: Any = None
    ) -> None:
        self._frames = stream_with_context(frames)
        self._release = release
        self._first: bytes | None = None
        self._ended = False
        self._metrics = metrics.current()  # the request's context is gone by the error
        self._server = server

    def prime(self) -> None:
        """Make the first frame now (in the view: its errors are the view's)."""
        self._first = next(self._frames)

    def __iter__(self) -> _Body:
        return self

    def __next__(self) -> bytes:
        first = self._first
        if first is not None:
            self._first = None
            return first
        if self._ended:
            raise StopIteration
        try:
            return self._next()
        except REDIS_ERRORS as error:
            self._ended = True
            logs.logger.warning("stream ended: redis", extra={"error": type(error).__name__})
            self._metrics.redis_error(error)
            return f"retry: {RETRY_MS}\n\n".encode()

    def _next(self) -> bytes:
        """The next frame, or (chunked under gunicorn) every frame written here."""
        server = self._server
        if server is None or not server.headers_sent or not server.chunked:
            return next(self._frames)
        sock = server.sock
        for item in self._frames:  # until the frames end (StopIteration) or a write fails
            if not item:
                continue  # an empty chunk would end the answer
            data = b"%X\r\n%b\r\n" % (len(item), item)
            sent = sock.send(data)
            if sent < len(data):  # the client reads slowly: wait for the rest
                sock.sendall(memoryview(data)[sent:])
            server.sent += len(item)
        raise StopIteration

    def close(self) -> None:
        try:
            self._frames.close()  # type: ignore[attr-defined]  # a generator
        finally:
            self._release()


REDIS_ERRORS = (redis.RedisError, redis.exceptions.RedisClusterException)
"""What a stream's reads raise when Redis fails or this process's pool is busy."""


def _answer(
    frames: Iterator[bytes], release: Callable[[], None] = lambda: None, prime: bool = False
) -> Response:
    body = _Body(frames, release, _server_answer())
    if prime:
        body.prime()
    return Response(
        body,
        200,
        mimetype=EVENT_STREAM,
        headers=STREAM_HEADERS,
        direct_passthrough=True,
    )


def _seat_view(seat: int, held: str) -> SeatView:
    """What a seat stream sends after each commit: the seat's view of the
    table as the stream read it, or ``None`` once the seat's token is no
    longer ``held``, the digest the request was authorised with (reissued,
    or the seat left: a later read would take the new holder's for it)."""

    def view(loaded: Loaded) -> dict[str, Any] | None:
        if loaded.auth["s"][seat] != held:
            return None
        return seat_answer(loaded, seat)

    return view


@blp.route("/<table_id>/stream")
class TableStream(MethodView):
    @blp.arguments(StreamQuerySchema, location="query")
    @blp.response(
        200,
        TableStreamFrameSchema,
        content_type=EVENT_STREAM,
        description="The stream of public events." + STREAM_TEXT,
    )
    @blp.doc(operationId="streamTable")
    @documented(blp, 404, 422)
    def get(self, query: dict[str, Any], table_id: str) -> Response:
        """Follow the public events (server-sent events)

        Every public event of the log, in order, as an unnamed event (`data`:
        the event as `GET …/events` gives it, `id`: `<seq>.<fingerprint>`),
        from after `Last-Event-ID` or `after`. Named events: `heartbeat`
        (every 15 s of silence, with the last id), `events-gone` (`oldest_seq`,
        `last_event`: the cursor is older than the log keeps, past its end, or
        names an event the log lost; the stream goes on from `last_event`:
        re-read the table), `seat-connected` and `seat-disconnected` (a seat's
        `connected` changed, RULES.md 5.5: `type`, `seat`, `at_ms`; no `id`:
        presence is not in the log), `table-deleted` (the stream ends). A stream ends by
        itself after 5 minutes; an EventSource reconnects with
        `Last-Event-ID` and misses nothing. Open streams are capped over
        every instance (32 public streams a table, 32 streams a client
        address, by default): past a cap, 429 `too-many-streams` with
        `Retry-After`.
        """
        check_table_id(table_id)
        cursor = _cursor(query)
        return _stream(table_id, cursor, _room())


@blp.route("/<table_id>/seats/<int:seat>/stream")
class SeatStream(MethodView):
    @blp.arguments(SeatStreamQuerySchema, location="query")
    @blp.response(
        200,
        SeatStreamFrameSchema,
        content_type=EVENT_STREAM,
        description="The seat's stream." + STREAM_TEXT,
    )
    @blp.doc(security=[*SECURITY, {"streamTicket": []}], operationId="streamSeat")
    @documented(blp, 401, 403, 404, 422)
    def get(self, query: dict[str, Any], table_id: str, seat: int) -> Response:
        """Follow a seat: the public events and its own view (server-sent events)

        The public stream's events and, after each commit that changed it, an
        event `seat` whose `data` is the seat's view (as `GET …/seats/{seat}`
        answers: its hand, what it may do now, its pending choice), `id` the
        last event's. With the seat's token in `Authorization`, or `?ticket=`
        (single use: `POST …/seats/{seat}/tickets`). A ticket that is spent,
        expired or unknown is 401 `ticket-invalid`; but when the request
        carries `Last-Event-ID` (an EventSource reconnecting by itself with
        the same URL, which any status but 200 would end for good) it is
        answered 200 with one event `ticket-invalid` and a `retry` of an
        hour: close that EventSource, get a new ticket and open a new one
        with `after` set to the last id seen. The stream also ends
        with `seat-closed` when the seat's token is reissued. While it is open
        the seat is `connected` (a comment line every 5 s keeps it so). Open
        streams are capped over every instance (4 a seat, 32 a client
        address, by default): past a cap, 429 `too-many-streams` with
        `Retry-After`, and a ticket is not spent.
        """
        check_table_id(table_id)
        ticket = query.get("ticket")
        cursor = _cursor(query)
        release = _room()
        try:
            if ticket is None:
                loaded = load(table_id, protected=True)
                if seat >= loaded.table.seats:
                    raise Problem(404, "seat-not-found", f"There is no seat {seat} at this table.")
                auth.require_seat(loaded.auth, seat)
                held: str | None = loaded.auth["s"][seat]
            else:
                held = _ticket_holder(table_id, ticket, seat)
            if held is not None:  # the caps, before a ticket is spent
                release = stream_caps.both(release, stream_caps.lease(table_id, seat))
            if ticket is not None and (held is None or not _spend(table_id, ticket, seat)):
                if "Last-Event-ID" not in request.headers:
                    raise Problem(401, "ticket-invalid", TICKET_INVALID)
                # An EventSource reconnecting by itself: any status but 200 would
                # end it for good, before the page could tell it to open a new one.
                release()
                return _answer(iter([_ticket_invalid().encode()]))
            if ticket is not None:
                presence.note(seat)  # the ticket's seat is seen, as with its token
        except BaseException:
            release()
            raise
        return _stream(table_id, cursor, release, seat, held)


TICKET_INVALID = (
    "This ticket is spent, expired or unknown: get a new one with the seat's token "
    "(POST …/tickets) and open a new stream with after= the last id seen."
)


def _ticket_invalid() -> str:
    return f"retry: {GIVE_UP_RETRY_MS}\n\n" + frame(
        {"code": "ticket-invalid", "detail": TICKET_INVALID}, "ticket-invalid"
    )


def _ticket_holder(table_id: str, ticket: str, seat: int) -> str | None:
    """The seat's token digest when ``ticket`` is this seat's, issued under
    the seat's current token (not spent yet: :func:`_spend`), else ``None``."""
    client = referee().store.client
    held = client.get(ticket_key(table_id, seat, ticket))
    if held is None:
        return None
    digest = held.decode() if isinstance(held, bytes) else str(held)
    try:
        current = referee().store.load(table_id).auth["s"][seat]
    except (TableNotFound, IndexError):
        return None
    return digest if digest and hmac.compare_digest(current, digest) else None


def _spend(table_id: str, ticket: str, seat: int) -> bool:
    """Spend the ticket (one atomic ``GETDEL``): whether it was still
    unspent (two requests with one ticket: one stream)."""
    return referee().store.client.getdel(ticket_key(table_id, seat, ticket)) is not None


@blp.route("/<table_id>/seats/<int:seat>/tickets")
class StreamTickets(MethodView):
    @blp.response(200, TicketSchema)
    @blp.doc(security=SECURITY, operationId="createStreamTicket")
    @documented(blp, 401, 403, 404)
    def post(self, table_id: str, seat: int) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Get a ticket that opens the seat's stream once (for EventSource)

        With the seat's token. The ticket (256 random bits, kept only hashed)
        opens `GET …/seats/{seat}/stream?ticket=` once, within `expires_in`
        seconds; it stops working when the seat's token is reissued.
        """
        loaded = load(table_id, protected=True)
        if seat >= loaded.table.seats:
            raise Problem(404, "seat-not-found", f"There is no seat {seat} at this table.")
        auth.require_seat(loaded.auth, seat)
        ticket = secrets.token_urlsafe(TICKET_BYTES)
        ttl = referee().settings.stream_ticket_seconds
        digest = loaded.auth["s"][seat]
        referee().store.client.set(ticket_key(table_id, seat, ticket), digest, ex=ttl, nx=True)
        stream = url_for("streams.SeatStream", table_id=table_id, seat=seat, ticket=ticket)
        # A secret, like a token: no cache may keep it.
        return {"ticket": ticket, "expires_in": ttl, "stream": stream}, 200, dict(NO_STORE)
