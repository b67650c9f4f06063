"""The frames of a table's event streams (:mod:`.streams`), for the OpenAPI
document only: the frames are written by :mod:`service.streams.follow`, and
nothing is dumped through these schemas.

OpenAPI 3.0 has no type for server-sent events. A stream's ``schema`` here is
one event as an EventSource dispatches it, ``{event, id, data}``, with
``data`` the text of one line of JSON; it is not the whole stream as one
string. That is how OpenAPI 3.2 reads a ``text/event-stream`` item
(``itemSchema``) and how the tools that read 3.0 today take its ``schema``:
schemathesis checks each event of a stream against it (a schema of one
string would fail every stream). Each event name is a component of its own,
and the stream is a ``oneOf`` of them told apart by ``event``, which a
TypeScript client narrows on. ``data`` names the component of its JSON in
``x-contentSchema`` (with ``x-contentMediaType``: 3.1's ``contentSchema``,
which a 3.0 schema may not hold) and, for a reader of ``/docs``, in its
description; every component is a type of the generated clients.
tests/streams/test_stream_leaks.py checks real frames against all of it.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ...spec.fields import DocumentedSchema
from ...spec.schemas import EventSchema, SeatViewSchema

EVENT_ID = (
    "`<seq>.<fingerprint>`: the event's `seq` and 8 hex digits of its content's SHA-256, "
    "so that a `seq` the log reused after losing its newest writes is not taken for the "
    "event a client saw. What `Last-Event-ID` and `after` take."
)


class HeartbeatSchema(DocumentedSchema):
    """A heartbeat's `data`: the stream is alive and has nothing new."""

    last_event = fields.Integer(
        metadata={"description": "The `seq` of the last event of the log so far."}
    )


class EventsGoneSchema(DocumentedSchema):
    """An `events-gone` event's `data`: the stream cannot go on from the
    cursor it was given (older than the events the log keeps, past its end,
    or naming an event the log lost); it goes on from `last_event`: re-read
    the table's view (or the seat's) first."""

    oldest_seq = fields.Integer(metadata={"description": "The oldest event the log keeps."})
    last_event = fields.Integer(metadata={"description": "The last event of the log so far."})


class PresenceChangeSchema(DocumentedSchema):
    """A `seat-connected` or `seat-disconnected` event's `data` (RULES.md
    5.5): a seat's `connected` changed. Not in the event log."""

    type = fields.String(validate=validate.OneOf(["seat-connected", "seat-disconnected"]))
    seat = fields.Integer()
    at_ms = fields.Integer(
        metadata={
            "description": "When (ms since the epoch, Redis's clock); for a drop, the instant "
            "the seat's presence ran out."
        }
    )


class StreamClosedSchema(DocumentedSchema):
    """The `data` of the event that ends a stream for good (`table-deleted`,
    `seat-closed`), which comes with a `retry` of an hour."""

    table = fields.String(metadata={"description": "The table's id."})


class TicketInvalidSchema(DocumentedSchema):
    """A `ticket-invalid` event's `data`: the EventSource reconnected by
    itself with a ticket that is spent, expired or unknown. Close it, get a
    new ticket (`POST …/seats/{seat}/tickets`) and open a new stream with
    `after` the last id seen."""

    code = fields.String(validate=validate.OneOf(["ticket-invalid"]))
    detail = fields.String()


def _frame(
    name: str,
    events: tuple[str, ...],
    data: type[ma.Schema],
    description: str,
    id_doc: str | None,
    event_doc: str | None = None,
) -> type[DocumentedSchema]:
    """The schema ``<name>Schema`` (component ``name``) of a stream event
    named one of ``events`` whose ``data`` is ``data``'s JSON."""
    component = data.__name__.removesuffix("Schema")
    members: dict[str, Any] = {
        "__doc__": description,
        "__module__": __name__,
        "PRESENT": ("event", "data"),
        "event": fields.String(
            validate=validate.OneOf(events),
            metadata={"description": event_doc or "The event's name (its `event:` line)."},
        ),
        "id": fields.String(
            metadata={
                "description": id_doc
                or "None of its own: an EventSource keeps the last id it was sent."
            }
        ),
        "data": fields.String(
            metadata={
                "description": f"One line of JSON, as the `{component}` schema has it.",
                "content_schema": data,
            }
        ),
    }
    return type(f"{name}Schema", (DocumentedSchema,), members)


EventFrameSchema = _frame(
    "EventFrame",
    ("message",),
    EventSchema,
    "A public event of the log, in order, each once (as `GET …/events` lists it).",
    EVENT_ID,
    "`message`: the frame has no `event:` line (an EventSource's `onmessage`).",
)
SeatFrameSchema = _frame(
    "SeatFrame",
    ("seat",),
    SeatViewSchema,
    "A seat's stream only: after the events of each commit that changed it, the seat's "
    "whole view (as `GET …/seats/{seat}` answers: its hand, what it may do now, its "
    "pending choice), with what it needs to act without another request. Never a card "
    "of another seat's hand.",
    "The last event's id (the cursor's `seq` while the stream has sent no event).",
)
HeartbeatFrameSchema = _frame(
    "HeartbeatFrame",
    ("heartbeat",),
    HeartbeatSchema,
    "After `STREAM_HEARTBEAT_SECONDS` (15) without an event.",
    "The last id sent again (the cursor's `seq` while the stream has sent no event).",
)
EventsGoneFrameSchema = _frame(
    "EventsGoneFrame",
    ("events-gone",),
    EventsGoneSchema,
    "The cursor (`Last-Event-ID` or `after`) cannot go on: the stream goes on from the "
    "log's last event. An answer of 200, so that an EventSource is not ended for good.",
    "The log's last `seq` (read on from it).",
)
PresenceFrameSchema = _frame(
    "PresenceFrame",
    ("seat-connected", "seat-disconnected"),
    PresenceChangeSchema,
    "A seat's `connected` changed while the stream is open (RULES.md 5.5). A stream "
    "that opens learns presence from the views, then from these.",
    None,
)
TableDeletedFrameSchema = _frame(
    "TableDeletedFrame",
    ("table-deleted",),
    StreamClosedSchema,
    "The table was deleted: the stream ends (`retry` an hour: do not come back).",
    None,
)
SeatClosedFrameSchema = _frame(
    "SeatClosedFrame",
    ("seat-closed",),
    StreamClosedSchema,
    "A seat's stream only: the seat's token was reissued (or the seat left), so the "
    "stream ends (`retry` an hour); its new holder opens its own.",
    None,
)
TicketInvalidFrameSchema = _frame(
    "TicketInvalidFrame",
    ("ticket-invalid",),
    TicketInvalidSchema,
    "A seat's stream only: the one event answered (200, `retry` an hour) to an "
    "EventSource that reconnected by itself (with `Last-Event-ID`) on a spent ticket.",
    None,
)


STREAM_TEXT = (
    " Each item of this schema is one event as an EventSource dispatches it (OpenAPI 3.0 "
    "has no type for server-sent events): `event` its name, `id` its id, `data` one line "
    "of JSON whose component the event's own schema names (`x-contentSchema`). `retry:` "
    "lines come alone (2000 ms at the start; an hour before an event that ends the "
    "stream), and a seat's stream writes a comment line (`:`) every 5 s."
)


PUBLIC_FRAMES = (
    EventFrameSchema,
    HeartbeatFrameSchema,
    EventsGoneFrameSchema,
    PresenceFrameSchema,
    TableDeletedFrameSchema,
)
"""The events of a table's public stream, which a seat's stream also sends."""


class TableStreamFrameSchema(DocumentedSchema):
    """One event of a table's public stream (`GET …/stream`): a public event
    of the log, a heartbeat, `events-gone`, a presence change, or
    `table-deleted`."""

    class Meta:
        one_of = PUBLIC_FRAMES


class SeatStreamFrameSchema(DocumentedSchema):
    """One event of a seat's stream (`GET …/seats/{seat}/stream`): those of
    the public stream, the seat's view after each commit (`seat`), and the
    events that end it (`seat-closed`, `ticket-invalid`)."""

    class Meta:
        one_of = (
            *PUBLIC_FRAMES,
            SeatFrameSchema,
            SeatClosedFrameSchema,
            TicketInvalidFrameSchema,
        )
