"""CORS through a real gunicorn (``CORS_ORIGINS``, ``service/edge/cors.py``):
preflights from an allowed origin are answered and from another one are not,
cross-origin answers expose the headers a page reads (2xx, 4xx, 404, 405,
429, gunicorn's own refusals), preflights spend no rate limit, and the default
(no setting) answers no CORS header at all."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
import redis

from benchmarks.processes import free_port
from service import create_app
from service.config import Settings, SettingsError
from service.edge import cors

from .conftest import RedisProcess, Served

ALLOWED = "http://localhost:5173"
ALSO_ALLOWED = "https://cards.example.com"
OTHER = "https://evil.example.com"
EXPOSED = "Allow, ETag, Idempotent-Replayed, Location, Retry-After, WWW-Authenticate, X-Request-Id"
DEAL = {
    "hands": [
        ["AH", "KH", "8H", "5H", "2H", "QC", "4S"],
        ["3C", "4C", "5C", "6C", "7C", "8C", "9C"],
        ["2D", "3D", "4D", "5D", "6D", "7D", "8D"],
        ["9H", "JH", "2S", "3S", "5S", "6S", "7S"],
    ]
}
"""RULES.md 2.10's deal (README's worked example)."""

Answer = tuple[int, Message, Any]


@pytest.fixture(scope="module")
def cors_served(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """Two allowed origins; X-Forwarded-For names the client, so that each
    test counts its rate limits on an address of its own; 5 anonymous
    requests per address a minute."""
    service = Served(
        redis_server.url,
        tmp_path_factory.mktemp("served-cors"),
        CORS_ORIGINS=f"{ALLOWED}, {ALSO_ALLOWED}",
        TRUSTED_PROXIES="1",
        RATE_LIMIT_ANONYMOUS="5/minute",
    )
    yield service
    service.stop()


def address() -> str:
    """A client address no other test uses (TEST-NET-3 plus random bits)."""
    return f"203.0.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250 + 1}"


def send(
    served: Served,
    method: str,
    path: str,
    body: Any = None,
    text: str | None = None,
    **headers: str,
) -> tuple[int, Message, Any]:
    """One request on a fresh connection (``body`` as JSON, or ``text`` as it
    is); the answer's headers as a case-insensitive ``Message``."""
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    try:
        data = text if body is None else json.dumps(body)
        if body is not None:
            headers.setdefault("Content-Type", "application/json")
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        return response.status, response.msg, json.loads(raw) if raw else None
    finally:
        connection.close()


def cors_headers(got: Message) -> dict[str, str]:
    return {k.lower(): v for k, v in got.items() if k.lower().startswith("access-control-")}


def preflight(
    served: Served, path: str, origin: str, method: str, headers: str, **more: str
) -> Answer:
    return send(
        served,
        "OPTIONS",
        path,
        Origin=origin,
        **{"Access-Control-Request-Method": method, "Access-Control-Request-Headers": headers},
        **more,
    )


def exposed(got: Message, origin: str = ALLOWED) -> None:
    """``got`` lets ``origin`` read it, and read every header a page needs."""
    assert got.get_all("Access-Control-Allow-Origin") == [origin]
    assert got["Access-Control-Expose-Headers"] == EXPOSED
    assert "Access-Control-Allow-Credentials" not in got


TURN = "/v1/tables/abcdefghijklmnopqrstuv/rounds/1/turns/1"


def test_a_preflight_from_an_allowed_origin_is_answered(cors_served: Served) -> None:
    status, got, _ = preflight(
        cors_served,
        TURN,
        ALLOWED,
        "PUT",
        "authorization, content-type, idempotency-key, if-none-match, if-match, last-event-id",
        **{"X-Forwarded-For": address()},
    )
    assert status == 200
    assert set(got["Allow"].split(", ")) == {"PUT", "OPTIONS"}
    assert cors_headers(got) == {
        "access-control-allow-origin": ALLOWED,
        "access-control-allow-methods": "DELETE, GET, HEAD, OPTIONS, POST, PUT",
        "access-control-allow-headers": (
            "authorization, content-type, idempotency-key, if-match, if-none-match, last-event-id"
        ),
        "access-control-expose-headers": EXPOSED,
        "access-control-max-age": "7200",
    }
    assert got["Vary"] == "Origin"
    # The other allowed origin is named, not the first.
    _, got, _ = preflight(cors_served, TURN, ALSO_ALLOWED, "PUT", "content-type")
    assert got["Access-Control-Allow-Origin"] == ALSO_ALLOWED
    # A header the API does not read is not allowed: the browser then refuses the call.
    _, got, _ = preflight(cors_served, TURN, ALLOWED, "PUT", "content-type, x-custom")
    assert got["Access-Control-Allow-Headers"] == "content-type"


def test_a_preflight_from_another_origin_gets_no_cors_header(cors_served: Served) -> None:
    for origin in (OTHER, "null", ALLOWED + ".evil.example", "http://localhost:5174"):
        status, got, _ = preflight(cors_served, TURN, origin, "PUT", "authorization")
        assert status == 200
        assert cors_headers(got) == {}, origin
        assert got["Vary"] == "Origin"


def test_a_cross_origin_game_reads_location_etag_and_replays(cors_served: Served) -> None:
    me = {"Origin": ALLOWED, "X-Forwarded-For": address()}
    key = str(uuid.uuid4())
    body = {"variant": "circle", "players": ["Ann", "Ben", "Cat", "Dan"], "first_dealer": 0}
    status, got, created = send(
        cors_served, "POST", "/v1/tables", body, **me, **{"Idempotency-Key": key}
    )
    assert status == 201, created
    exposed(got)
    table = created["table_id"]
    assert got["Location"] == f"/v1/tables/{table}"
    status, got, again = send(
        cors_served, "POST", "/v1/tables", body, **me, **{"Idempotency-Key": key}
    )
    assert (status, got["Idempotent-Replayed"], again) == (201, "true", created)
    exposed(got)

    host = {"Authorization": f"Bearer {created['host_token']}", **me}
    status, got, _ = send(cors_served, "POST", f"/v1/tables/{table}/rounds", DEAL, **host)
    assert status == 201
    assert got["Location"] == f"/v1/tables/{table}/rounds/1"
    exposed(got)
    status, got, view = send(cors_served, "GET", f"/v1/tables/{table}", **me)
    assert status == 200 and view["round"]["number"] == 1
    etag = got["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    exposed(got)
    status, got, _ = send(
        cors_served, "GET", f"/v1/tables/{table}", **me, **{"If-None-Match": etag}
    )
    assert (status, got["ETag"]) == (304, etag)
    exposed(got)

    seat = {"Authorization": f"Bearer {created['seat_tokens'][0]['token']}", **me}
    path = f"/v1/tables/{table}/rounds/1/exchanges/1/passes/0"
    status, got, passed = send(cors_served, "PUT", path, {"cards": ["4S"]}, **seat)
    assert (status, passed["resolved"]) == (200, False), passed
    exposed(got)


def test_errors_carry_the_headers(cors_served: Served) -> None:
    table = "abcdefghijklmnopqrstuv"
    cases = [
        # (method, path, text body, extra headers, status, code)
        ("GET", f"/v1/tables/{table}", None, {}, 404, "table-not-found"),
        ("GET", "/v1/no-such-thing", None, {}, 404, "not-found"),
        ("PATCH", "/v1/tables", None, {}, 405, "method-not-allowed"),
        ("POST", "/v1/tables", "{}", {"Content-Type": "text/plain"}, 415, "unsupported-media-type"),
        ("POST", "/v1/tables", "{", {"Content-Type": "application/json"}, 400, "malformed-request"),
        ("POST", "/v1/tables", "{}", {"Content-Type": "application/json"}, 422, "invalid-request"),
        (
            "POST",
            f"/v1/tables/{table}/rounds",
            None,
            {"Authorization": "Bearer x"},
            401,
            "token-unknown",
        ),
    ]
    for method, path, text, extra, status, code in cases:
        me = {"Origin": ALLOWED, "X-Forwarded-For": address()}
        got_status, got, problem = send(cors_served, method, path, text=text, **me, **extra)
        assert (got_status, problem["code"]) == (status, code), (method, path, problem)
        assert got["Content-Type"] == "application/problem+json"
        assert got["X-Request-Id"]
        exposed(got)
        if status == 405:
            assert set(got["Allow"].split(", ")) == {"OPTIONS", "POST"}
        if status == 401:
            assert got["WWW-Authenticate"].startswith("Bearer")


def test_a_429_carries_the_headers_and_preflights_spend_no_limit(cors_served: Served) -> None:
    where = {"X-Forwarded-For": address()}
    me = {"Origin": ALLOWED, **where}
    for _ in range(20):  # four times the anonymous budget of 5 a minute
        status, got, _ = preflight(
            cors_served, "/v1/variants", ALLOWED, "GET", "x-request-id", **where
        )
        assert status == 200
        assert got["Access-Control-Allow-Origin"] == ALLOWED
    for _ in range(5):
        status, _, _ = send(cors_served, "GET", "/v1/variants", **me)
        assert status == 200
    status, got, problem = send(cors_served, "GET", "/v1/variants", **me)
    assert (status, problem["code"]) == (429, "rate-limited")
    assert 1 <= int(got["Retry-After"]) <= 60
    exposed(got)
    # Over the limit, a preflight is still answered (it reads no counter).
    status, got, _ = preflight(cors_served, "/v1/variants", ALLOWED, "GET", "x-request-id", **where)
    assert (status, got["Access-Control-Allow-Origin"]) == (200, ALLOWED)
    # Another origin's 429 lets it read nothing.
    status, got, _ = send(cors_served, "GET", "/v1/variants", **{**me, "Origin": OTHER})
    assert status == 429
    assert cors_headers(got) == {}


def raw(served: Served, request: bytes) -> tuple[int, Message]:
    """Send ``request`` as it is; gunicorn's answer's status and headers."""
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head = data.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
    message = Message()
    for line in head[1:]:
        name, _, value = line.partition(":")
        message[name] = value.strip()
    return int(head[0].split()[1]), message


def test_gunicorn_refusals_carry_the_headers_when_it_read_the_origin(cors_served: Served) -> None:
    # An invalid Content-Length: gunicorn read the headers, Origin included.
    bad_length = b"POST /v1/tables HTTP/1.1\r\nHost: x\r\nOrigin: %s\r\nContent-Length: x\r\n\r\n"
    status, got = raw(cors_served, bad_length % ALLOWED.encode())
    assert status == 400
    assert got["Content-Type"] == "application/problem+json"
    exposed(got)
    status, got = raw(cors_served, bad_length % OTHER.encode())
    assert status == 400
    assert cors_headers(got) == {}
    # A request line over 4094 bytes: gunicorn stops before the headers, so it
    # cannot know which of the two origins asked, and names none.
    too_long = b"GET /v1/variants?x=" + b"a" * 5000 + b" HTTP/1.1\r\nOrigin: %s\r\n\r\n"
    status, got = raw(cors_served, too_long % ALLOWED.encode())
    assert status == 414
    assert cors_headers(got) == {}


def test_without_the_setting_no_answer_has_cors_headers(served: Served) -> None:
    status, got, _ = preflight(served, TURN, ALLOWED, "PUT", "authorization, content-type")
    assert (status, set(got["Allow"].split(", "))) == (200, {"PUT", "OPTIONS"})
    assert cors_headers(got) == {}
    status, got, created = send(
        served,
        "POST",
        "/v1/tables",
        {"players": ["a", "b", "c", "d"], "first_dealer": 0},
        Origin=ALLOWED,
    )
    assert status == 201 and got["Location"]
    assert cors_headers(got) == {}
    assert "Vary" not in got
    status, got, _ = send(served, "GET", "/v1/tables/abcdefghijklmnopqrstuv", Origin=ALLOWED)
    assert status == 404
    assert cors_headers(got) == {}
    too_long = b"GET /v1/variants?x=" + b"a" * 5000 + b" HTTP/1.1\r\nOrigin: %s\r\n\r\n"
    status, got = raw(served, too_long % ALLOWED.encode())
    assert status == 414
    assert cors_headers(got) == {}


# The app alone (Flask's test client): what needs no gunicorn to show.


def dead_redis_app(*origins: str) -> Any:
    """An app whose Redis does not answer (every call to it would be a 503)."""
    settings = Settings(cors_origins=origins, redis_timeout_seconds=0.2)
    return create_app(settings, client=redis.Redis(host="127.0.0.1", port=1, socket_timeout=0.2))


def test_a_preflight_reads_nothing_from_redis() -> None:
    client = dead_redis_app(ALLOWED).test_client()
    answer = client.options(
        "/v1/tables",
        headers={
            "Origin": ALLOWED,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, idempotency-key",
        },
    )
    assert answer.status_code == 200
    assert answer.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert answer.headers["Access-Control-Allow-Headers"] == "content-type, idempotency-key"
    # The same app's GET needs Redis, and says so (with the headers).
    answer = client.get("/v1/variants", headers={"Origin": ALLOWED})
    assert (answer.status_code, answer.json["code"]) == (503, "redis-unavailable")
    assert answer.headers["Access-Control-Allow-Origin"] == ALLOWED


def test_a_stream_preflight_allows_cache_control() -> None:
    """Fetch-based EventSource clients (e.g. @microsoft/fetch-event-source)
    send ``Cache-Control: no-cache`` and ``Accept`` with a stream's GET and
    its ``Last-Event-ID``; the preflight must allow them, or the browser
    refuses the stream."""
    client = dead_redis_app(ALLOWED).test_client()
    answer = client.options(
        "/v1/tables/abcdefghijklmnopqrstuv/seats/1/stream",
        headers={
            "Origin": ALLOWED,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "authorization, cache-control, last-event-id",
        },
    )
    assert answer.status_code == 200
    assert answer.headers["Access-Control-Allow-Origin"] == ALLOWED
    allowed = answer.headers["Access-Control-Allow-Headers"]
    assert allowed == "authorization, cache-control, last-event-id"


def test_any_origin_with_a_star_and_never_credentials() -> None:
    client = dead_redis_app("*").test_client()
    answer = client.options(
        TURN,
        headers={
            "Origin": OTHER,
            "Access-Control-Request-Method": "PUT",
            "Access-Control-Request-Headers": "authorization",
        },
    )
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
    assert answer.headers["Access-Control-Allow-Headers"] == "authorization"
    assert "Access-Control-Allow-Credentials" not in answer.headers
    assert "Vary" not in answer.headers  # the same answer for every origin


@pytest.mark.parametrize(
    ("origins", "unread"),
    [(("*",), ["*"]), ((ALLOWED,), [ALLOWED]), ((ALLOWED, ALSO_ALLOWED), [])],
)
def test_gunicorn_refusals_before_the_headers(origins: tuple[str, ...], unread: list[str]) -> None:
    app = dead_redis_app(*origins)
    headers = dict(cors.error_page_headers(app, None, None))
    assert [v for k, v in headers.items() if k == "Access-Control-Allow-Origin"] == unread
    read = cors.error_page_headers(app, [("ORIGIN", OTHER)], "GET")
    assert read == (
        [("Access-Control-Allow-Origin", "*"), ("Access-Control-Expose-Headers", EXPOSED)]
        if origins == ("*",)
        else []
    )
    assert cors.error_page_headers(dead_redis_app(), None, None) == []


@pytest.mark.parametrize(
    ("value", "origins"),
    [
        ("", ()),
        ("*", ("*",)),
        (f"{ALLOWED},{ALSO_ALLOWED}", (ALLOWED, ALSO_ALLOWED)),
        (f" {ALLOWED}  {ALSO_ALLOWED} ", (ALLOWED, ALSO_ALLOWED)),
        ("http://[::1]:8080,capacitor://localhost", ("http://[::1]:8080", "capacitor://localhost")),
    ],
)
def test_cors_origins_from_the_environment(value: str, origins: tuple[str, ...]) -> None:
    assert Settings.from_env({"CORS_ORIGINS": value}).cors_origins == origins


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("https://app.example/", "an origin has no path: write https://app.example."),
        ("https://app.example/play", "an origin has no path: write https://app.example."),
        ("HTTPS://App.example", "browsers send it in lower case: write https://app.example."),
        ("https://*.example.com", "wildcards are not supported; list each origin."),
        ("app.example.com", "an origin is scheme://host[:port], e.g. https://app.example.com."),
        ("null", "'null' is the origin of sandboxed and file:// pages"),
        ("https://app.example:443", "names https's default port"),
        ("http://app.example:0", "has no valid port (1 to 65535)"),
        ("*, https://app.example", "'*' allows every origin; give it alone"),
    ],
)
def test_a_wrong_origin_is_refused_with_what_to_write(value: str, message: str) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_env({"CORS_ORIGINS": value})
    assert message in str(refused.value)
    assert str(refused.value).startswith("CORS_ORIGINS")


def test_serve_refuses_to_start_with_a_wrong_origin(tmp_path: Path) -> None:
    env = {**os.environ, "CORS_ORIGINS": "https://app.example/", "PORT": str(free_port())}
    env["REFEREE_DATA_DIR"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "referee: cannot serve: CORS_ORIGINS: 'https://app.example/' is not an origin:"
        " an origin has no path: write https://app.example.\n"
    )
    assert list(tmp_path.iterdir()) == []  # no embedded Redis was started
