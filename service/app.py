"""The Flask app: :func:`create_app`, its Redis client and its spec (what
``service`` gives, loaded on first use; see ``service/__init__.py``)."""

from __future__ import annotations

import functools
import hashlib
import json
import random

import redis
import yaml
from flask import Flask, Response, request, send_from_directory
from flask_smorest import Api
from flask_smorest.spec.plugins import integerconverter2paramschema
from swagger_ui_bundle import swagger_ui_path
from werkzeug.exceptions import HTTPException, NotFound
from werkzeug.middleware.proxy_fix import ProxyFix

from . import clock, logs, metrics
from .config import Settings
from .edge import cors, in_flight, inputs, limits, presence, problems
from .edge.common import Referee, RefereeFlask
from .games import codec
from .games.errors import StoredFormatNewer
from .resources import blueprints
from .resources.proofs import round_records
from .site import docs_pages, play_page, problem_pages
from .spec.openapi import CLIENT_KEY_SCHEME, CLIENT_KEY_TEXT, RefereeApi, description
from .storage import feeds
from .storage.client import Client, RedisBusy, redis_client
from .storage.idempotency import IdempotencyStore
from .storage.replicas import Acknowledgement, ReplicasBehind
from .storage.store import Contended, StepMismatch, TableStore
from .storage.watch import PrimaryWatch, WritesRefused
from .version import release

API_VERSION = release()
"""The spec's ``info.version``: the release that serves it (``/healthz``'s
``version``), so that a client generated from it names the service it came from."""

SWAGGER_UI_ASSETS = "/docs/assets"
SWAGGER_UI_FILES = ("swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js")
"""What flask-smorest's /docs page loads, served from the swagger-ui-bundle package."""


TICKET_TEXT = (
    "A single-use ticket from `POST /v1/tables/{table_id}/seats/{seat}/tickets`, for a "
    "seat's stream opened by a browser's EventSource (which cannot send `Authorization`)."
)


def create_app(settings: Settings | None = None, client: Client | None = None) -> Flask:
    """The Flask app. ``settings`` default to the environment; ``client``
    defaults to one made from the settings (see :mod:`service.storage.client`)."""
    settings = settings or Settings.from_env()
    app = RefereeFlask("service")  # the package: Flask finds files and names its logger by it
    app.config.update(
        API_TITLE="card-referee",
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs",
        # Swagger UI's files come from this service (the swagger-ui-bundle
        # package), so that /docs works on a machine without internet.
        OPENAPI_SWAGGER_UI_URL=SWAGGER_UI_ASSETS + "/",
        # No call to swagger.io's online validator: every asset is this service's.
        OPENAPI_SWAGGER_UI_CONFIG={"validatorUrl": None},
        API_SPEC_OPTIONS={"info": {"description": description()}},
        MAX_CONTENT_LENGTH=inputs.MAX_BODY,
    )
    client = client or redis_client(settings)
    feeds.choose(client, settings.redis_pubsub == "sharded")  # also for a client given
    cors.init_app(app, settings)  # first: its after_request sees every other hook's headers
    measured = metrics.init_app(app, client)
    everyone = settings.redis_wait_replicas == "all"
    acknowledgement = Acknowledgement(
        0 if everyone else int(settings.redis_wait_replicas),
        settings.redis_wait_timeout_ms,
        PrimaryWatch.of(client),  # behind Sentinels: which primary may acknowledge
        everyone,
    )
    store = TableStore(
        client,
        # STORED_FORMAT: the previous release's formats until the contract step.
        codec.PREVIOUS if settings.stored_format == "previous" else codec,
        settings.table_ttl_seconds,
        on_conflict=measured.commit_conflicts.inc,
        turn_wait_seconds=settings.redis_timeout_seconds,
        events_kept=settings.events_kept,
        rounds_kept=settings.rounds_kept,
        acknowledgement=acknowledgement,
        notes=clock.next_instant,  # the worker learns of a table's clock from its commits
        paused=clock.paused,  # a person's act starts a paused table's clock again
    )
    app.extensions["referee"] = Referee(
        settings, store, IdempotencyStore(client, acknowledgement), random.SystemRandom()
    )
    if settings.trusted_proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.trusted_proxies)  # type: ignore[method-assign]
    logs.configure()
    logs.init_app(app)  # before the limiter, so that a 429 has a request id too
    in_flight.init_app(app, settings)  # before the limiter's first Redis call
    limits.init_app(app, settings, client)
    presence.init_app(app, client, int(settings.presence_seconds * 1000))
    inputs.init_app(app)  # after the limiter: an oversized body still counts
    api = RefereeApi(app)
    api.register_converter(inputs.AsciiIntegerConverter, integerconverter2paramschema)
    api.spec.components.security_scheme("bearerAuth", {"type": "http", "scheme": "bearer"})
    api.spec.components.security_scheme(
        "streamTicket",
        {"type": "apiKey", "in": "query", "name": "ticket", "description": TICKET_TEXT},
    )
    api.spec.components.security_scheme(
        CLIENT_KEY_SCHEME,
        {
            "type": "apiKey",
            "in": "header",
            "name": limits.CLIENT_KEY_HEADER,
            "description": CLIENT_KEY_TEXT,
        },
    )
    for blp in blueprints():
        api.register_blueprint(blp)
    app.register_blueprint(problem_pages.pages_blp)  # the problem types' pages, not in the spec
    _register_errors(app, settings)
    docs_pages.init_app(app, settings.docs_dir, settings.rules_docs_dir, settings.deploy_docs_dir)
    play_page.init_app(app)  # /play, the reference web table
    round_records.init_app(app)  # compression of a round's record, when asked

    @app.get(f"{SWAGGER_UI_ASSETS}/<name>")
    def swagger_ui_asset(name: str) -> Response:
        """A file of Swagger UI, for /docs (not part of the API)."""
        if name not in SWAGGER_UI_FILES:
            raise NotFound()
        return send_from_directory(swagger_ui_path, name, max_age=86400)

    documents = SpecDocuments(api)

    @app.get("/openapi.yaml")
    def openapi_yaml() -> Response:
        """The OpenAPI document as YAML (the committed openapi.yaml)."""
        return documents.answer("yaml")

    # flask-smorest's own view renders the whole spec on every request.
    app.view_functions["api-docs.openapi_json"] = lambda: documents.answer("json")

    app.extensions["referee_api"] = api
    return app


SPEC_MAX_AGE_SECONDS = 600
"""How long a client may reuse the spec without asking (then: 304 by ``ETag``)."""


class SpecDocuments:
    """``/openapi.json`` and ``/openapi.yaml``: rendered once per process
    (either took about 20 times a seat view's CPU per request), each with a
    strong ``ETag`` (SHA-256 of its bytes: 304 on ``If-None-Match``) and
    ``Cache-Control``. They count on the caller's rate limits as any request."""

    MIMETYPES = {"json": "application/json", "yaml": "application/yaml"}

    def __init__(self, api: Api) -> None:
        self.api = api
        self.rendered: dict[str, tuple[bytes, str]] = {}

    def _render(self, kind: str) -> tuple[bytes, str]:
        if kind == "json":  # as flask-smorest writes it
            text = json.dumps(self.api.spec.to_dict(), indent=2)
        else:
            text = spec_yaml(self.api)
        data = text.encode()
        return data, hashlib.sha256(data).hexdigest()[:32]

    def answer(self, kind: str) -> Response:
        """The document ``kind`` (``json``, ``yaml``), or 304 when the
        request's ``If-None-Match`` names it."""
        found = self.rendered.get(kind)
        if found is None:
            found = self.rendered[kind] = self._render(kind)
        data, etag = found
        response = Response(data, mimetype=self.MIMETYPES[kind])
        response.set_etag(etag)
        response.cache_control.public = True
        response.cache_control.max_age = SPEC_MAX_AGE_SECONDS
        response.make_conditional(request)
        return response


@functools.cache
def _yaml_of(document: str) -> str:
    return yaml.safe_dump(json.loads(document), sort_keys=True, allow_unicode=True)


def spec_yaml(api: Api) -> str:
    """The OpenAPI document as YAML, stable across runs (written once per
    process: PyYAML takes a second over it)."""
    return _yaml_of(json.dumps(api.spec.to_dict(), sort_keys=True))


def _register_errors(app: Flask, settings: Settings) -> None:
    problems.register(app)
    retry = {"Retry-After": str(settings.retry_after_seconds)}

    # Replaces flask-smorest's JSON error body with problem+json.
    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException) -> Response:
        return problems.http_exception_problem(error).response()

    # A cluster that is failing over or has lost its slot map is down too, and
    # so is a primary mid-failover: a replica refusing a write (ReadOnlyError),
    # a script missing again right after it was loaded (NoScriptError: a
    # SIGKILLed primary's successor, seen once as a 500 in the failover test).
    @app.errorhandler(redis.ConnectionError)
    @app.errorhandler(redis.TimeoutError)
    @app.errorhandler(redis.exceptions.ReadOnlyError)
    @app.errorhandler(redis.exceptions.NoScriptError)
    @app.errorhandler(redis.exceptions.ClusterError)
    @app.errorhandler(redis.exceptions.RedisClusterException)
    def _redis_down(error: Exception) -> Response:
        logs.logger.warning("redis unavailable", extra={"error": type(error).__name__})
        metrics.current().redis_error(error)
        return problems.Problem(
            503,
            "redis-unavailable",
            "The table store does not answer; retry shortly.",
            headers=retry,
        ).response()

    # Every connection of this process to Redis stayed in use for
    # REDIS_POOL_TIMEOUT_SECONDS: this process is busy, Redis may be well
    # (another instance may answer). Nothing was sent to Redis.
    @app.errorhandler(RedisBusy)
    def _redis_busy(error: RedisBusy) -> Response:
        logs.logger.warning("redis pool busy", extra={"error": str(error)})
        metrics.current().redis_error(error)
        return problems.Problem(
            503,
            "redis-busy",
            "This instance's connections to the table store are all in use; retry shortly.",
            headers=retry,
        ).response()

    # Behind Sentinels, a primary being replaced (or not the one they name)
    # takes no write, nor one that refuses writes (/readyz's probe): nothing
    # was written (deploy/README, "Failovers").
    @app.errorhandler(WritesRefused)
    def _writes_refused(error: WritesRefused) -> Response:
        logs.logger.warning("redis takes no write", extra={"error": str(error)})
        metrics.current().redis_error(error)
        return problems.Problem(
            503,
            "redis-unavailable",
            f"The table store's primary takes no move now ({error}); retry shortly.",
            headers=retry,
        ).response()

    # The stored-format contract (deploy/README "Upgrading"): a newer
    # release's data, or choices of another step, during a rolling update.
    # Nothing was written; a pod of the newer release can serve the retry.
    @app.errorhandler(StoredFormatNewer)
    @app.errorhandler(StepMismatch)
    def _stored_format(error: Exception) -> Response:
        newer = isinstance(error, StoredFormatNewer)
        logs.logger.warning("stored format", extra={"error": str(error)})
        return problems.Problem(
            503,
            "stored-format-newer" if newer else "step-mismatch",
            "A newer release of the service wrote this table; retry shortly."
            if newer
            else "This table's pending choices belong to another step than its state; "
            "retry shortly.",
            headers=retry,
        ).response()

    # REDIS_WAIT_REPLICAS: the move is made, not acknowledged; its retry
    # with the same Idempotency-Key is answered from its record.
    @app.errorhandler(ReplicasBehind)
    def _replicas_behind(error: ReplicasBehind) -> Response:
        logs.logger.warning("replicas behind", extra={"error": str(error)})
        return problems.Problem(
            503,
            "replicas-behind",
            f"{error.acked} of the {error.wanted} replicas confirmed the move in time; retry "
            "with the same Idempotency-Key shortly.",
            headers=retry,
        ).response()

    @app.errorhandler(Contended)
    def _contended(error: Contended) -> Response:
        return problems.Problem(
            503, "table-busy", "Too many moves at once on this table; retry shortly.", headers=retry
        ).response()
