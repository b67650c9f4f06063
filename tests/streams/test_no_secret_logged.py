"""No join code, token or stream ticket reaches a log line (gunicorn's own
error lines, the app's access and other lines, all in the service's log), a
metric or an error body, across everything that handles one: creating with
open seats, joining, a wrong and a spent code, leaving, a new code, a
reissued token and the old one refused, tickets issued, redeemed, spent (on
an EventSource's reconnect with ``Last-Event-ID``, and without), shown at
another seat, streams by token and by a refused token, and requests gunicorn
refuses before the app (a request line too long, a malformed one, a header
it cannot parse) that carry a ticket or a token (issue 18)."""

from __future__ import annotations

import json
import socket
from typing import Any

import redis

from ..conftest import Served
from ..helpers import phone_lost
from ..test_gunicorn import send
from .sse import Reader


def raw(served: Served, head: bytes) -> tuple[int, bytes]:
    """Send ``head`` as it is (no client would); gunicorn's status and body."""
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(head)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    status = int(answer.split(b" ", 2)[1])
    return status, answer.partition(b"\r\n\r\n")[2]


def test_no_code_token_or_ticket_reaches_a_log_line_a_metric_or_an_error_body(
    served: Served, redis_client: redis.Redis
) -> None:
    secrets: list[str] = []
    refused: list[tuple[str, int, Any]] = []  # what, status, body: none may hold a secret

    def call(what: str, method: str, path: str, body: Any = None, **headers: str) -> Any:
        status, _, answer = send(served, method, path, body, **headers)
        if status >= 400:
            refused.append((what, status, answer))
        return status, answer

    status, created = call("create", "POST", "/v1/tables", {"players": [None] * 4})
    assert status == 201
    url, host = f"/v1/tables/{created['table_id']}", created["host_token"]
    codes = [c["code"] for c in created["join_codes"]]
    secrets += [host, *codes]
    tokens = []
    for seat, code in enumerate(codes):
        status, joined = call("join", "POST", f"{url}/join", {"name": f"P{seat}", "code": code})
        assert (status, joined["seat"]) == (201, seat)
        tokens.append(joined["token"])
    secrets += tokens
    bearer = [{"Authorization": f"Bearer {t}"} for t in tokens]
    as_host = {"Authorization": f"Bearer {host}"}
    assert call("spent code", "POST", f"{url}/join", {"name": "Eve", "code": codes[0]})[0] == 403
    wrong = {"name": "Eve", "code": codes[0][::-1]}
    assert call("wrong code", "POST", f"{url}/join", wrong)[0] == 403
    # Seat 2 leaves; a new code fills it again.
    assert call("leave", "POST", f"{url}/seats/2/leave", **bearer[2])[0] == 200
    assert call("old token", "GET", f"{url}/seats/2", **bearer[2])[0] == 401
    status, issued = call("code", "POST", f"{url}/codes", {"seat": 2}, **as_host)
    assert status == 201
    secrets.append(issued["code"])
    status, joined = call("join", "POST", f"{url}/join", {"name": "P2", "code": issued["code"]})
    assert status == 201
    tokens[2] = joined["token"]
    # Seat 1 loses its phone (RULES.md 5.1: a connected joiner's token stays
    # its own); the host reissues its token: the old one is refused.
    phone_lost(redis_client, created["table_id"], 1)
    status, reissued = call("reissue", "POST", f"{url}/seats/1/token", **as_host)
    assert status == 201
    old, tokens[1] = tokens[1], reissued["token"]
    secrets += [tokens[1], tokens[2]]
    assert call("reissued", "GET", f"{url}/seats/1", Authorization=f"Bearer {old}")[0] == 401
    bearer = [{"Authorization": f"Bearer {t}"} for t in tokens]
    assert call("deal", "POST", f"{url}/rounds", {}, **as_host)[0] == 201

    # Tickets: issued, redeemed, spent (with and without Last-Event-ID), elsewhere.
    tickets = []
    for _ in range(3):
        status, ticket = call("ticket", "POST", f"{url}/seats/0/tickets", **bearer[0])
        assert status == 200
        tickets.append(ticket)
    secrets += [t["ticket"] for t in tickets]
    stream = Reader(served.base + tickets[0]["stream"])  # the fixture's streams end at once
    assert stream.status == 200 and stream.until("seat")
    stream.close()
    again = Reader(served.base + tickets[0]["stream"], **{"Last-Event-ID": "2"})
    assert (again.status, again.next().event) == (200, "ticket-invalid")  # type: ignore[union-attr]
    again.close()
    spent = tickets[0]["stream"]
    assert call("spent ticket", "GET", spent)[0] == 401
    elsewhere = tickets[1]["stream"].replace("/seats/0/", "/seats/1/")
    assert call("ticket elsewhere", "GET", elsewhere)[0] == 401
    assert call("no ticket", "GET", f"{url}/seats/0/stream?ticket={'x' * 43}")[0] == 401
    by_token = Reader(f"{served.base}{url}/seats/3/stream", **bearer[3])
    assert by_token.status == 200 and by_token.until("seat")
    by_token.close()
    assert call("refused token", "GET", f"{url}/seats/3/stream", **bearer[1])[0] == 403
    assert call("a token in the query", "GET", f"{url}/seats/3?token={tokens[3]}")[0] == 401

    # Requests gunicorn refuses before the app, each carrying a secret.
    ticket = tickets[2]["ticket"]
    heads = {
        "request line too long": f"GET {url}/seats/0/stream?ticket={ticket}&pad={'a' * 5000} "
        "HTTP/1.1\r\nHost: x\r\n\r\n",
        # A space before the query: gunicorn reads the rest as the HTTP version.
        "malformed request line": f"GET {url}/seats/0/stream ?ticket={ticket} HTTP/1.1\r\n"
        "Host: x\r\n\r\n",
        "malformed header name": f"GET {url}/seats/3 HTTP/1.1\r\nHost: x\r\n"
        f"Bearer {tokens[3]}: x\r\n\r\n",
        "malformed header": f"GET {url}/seats/3 HTTP/1.1\r\nHost: x\r\n"
        f"Authorization: Bearer {tokens[3]}\x01\r\n\r\n",
    }
    for what, head in heads.items():
        status, body = raw(served, head.encode("latin-1"))
        assert 400 <= status < 500, (what, status)
        refused.append((what, status, json.loads(body)))

    metrics = send_text(served, "/metrics")
    log = served.logged(f"{url}/seats/0/stream", f"{url}/seats/0/tickets", f"{url}/join")
    assert f"{url}/seats/0/stream" in log and f"{url}/seats/0/tickets" in log
    assert f"{url}/join" in log and f"{url}/seats/1/token" in log
    for secret in secrets:
        assert secret not in log
        assert secret not in metrics
        for what, status, body in refused:
            assert secret not in json.dumps(body), (what, status, body)


def send_text(served: Served, path: str) -> str:
    import urllib.request

    with urllib.request.urlopen(f"{served.base}{path}", timeout=10) as answer:
        return answer.read().decode()  # type: ignore[no-any-return]


def test_a_stream_that_fails_mid_way_logs_no_ticket(tmp_path: Any) -> None:
    """Redis dies under a seat stream opened with a ticket: the stream ends
    with its retry and the service logs the failure (never the query, which
    holds the ticket; before issue 39 the failure went up to gunicorn, which
    logged the request's URI)."""
    from ..conftest import RedisProcess

    own = RedisProcess(tmp_path / "redis").start()
    try:
        service = Served(own.url, tmp_path, STREAM_HEARTBEAT_SECONDS="0.5")
    except BaseException:
        own.stop()
        raise
    try:
        status, created = send(service, "POST", "/v1/tables", {"players": ["A", "B", "C", "D"]})[
            ::2
        ]
        assert status == 201
        url = f"/v1/tables/{created['table_id']}"
        token = {"Authorization": f"Bearer {created['seat_tokens'][0]['token']}"}
        ticket = send(service, "POST", f"{url}/seats/0/tickets", **token)[2]
        stream = Reader(service.base + ticket["stream"])
        assert stream.until("seat")
        own.kill()  # the next heartbeat's read fails
        while stream.next(30) is not None:
            pass
        stream.close()
        log = service.logged('"message": "stream ended: redis"')
        assert "Error handling request" not in log  # ended by the service, not gunicorn
        assert ticket["ticket"] not in log
    finally:
        service.stop()
        own.stop()


def test_gunicorns_lines_lose_what_the_client_sent() -> None:
    """The messages gunicorn writes with a client's text in them (its
    ``handle_error``), as the service's formatter writes them."""
    import logging

    from service.logs import json_formatter

    lines = {
        ("Error handling request %s %s", ("GET", "/v1/t/x/seats/0/stream?ticket=SECRET&a=1")):
            "Error handling request GET /v1/t/x/seats/0/stream?…",
        ("Invalid request from ip=1.2.3.4: Invalid HTTP header name: 'Bearer SECRET'", ()):
            "Invalid request from ip=1.2.3.4: Invalid HTTP header name: '…'",
        ("Invalid request from ip=1.2.3.4: Invalid HTTP Version: '?ticket=SECRET HTTP/1.1'", ()):
            "Invalid request from ip=1.2.3.4: Invalid HTTP Version: '…'",
        ("Invalid HTTP request line: \"x'SECRET\"", ()): "Invalid HTTP request line: '…'",
    }  # fmt: skip
    for (message, args), written in lines.items():
        record = logging.LogRecord("gunicorn.error", logging.ERROR, "", 0, message, args, None)
        assert json.loads(json_formatter().format(record))["message"] == written
    kept = logging.LogRecord("referee", logging.INFO, "", 0, "x ?y 'z'", (), None)
    assert json.loads(json_formatter().format(kept))["message"] == "x ?y 'z'"  # the service's own
