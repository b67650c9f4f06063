"""The OpenAPI side of the app: an ``Api`` whose error responses are problem+json,
the spec's short description and its list of every error code (both written
from the game registry, :mod:`.docs_generated`)."""

from __future__ import annotations

import copy
import http
import re
import threading
from typing import Any

from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.common import resolve_schema_instance
from apispec_oneofschema.plugin import OneofOpenAPIConverter
from flask_smorest import Api
from flask_smorest.utils import prepare_response
from marshmallow_oneofschema.one_of_schema import OneOfSchema

from ..edge.limits import CLIENT_KEY_HEADER, UNLIMITED_ENDPOINTS
from ..edge.problems import PROBLEM_JSON
from ..edge.rules_links import link_rules
from ..site import docs_generated
from . import per_game as spec_games
from . import texts
from .fields import DocumentedSchema, StrictSchema
from .schemas import GameSchema, OptionsSchema, ProblemSchema


class StrictConverter(OneofOpenAPIConverter):  # type: ignore[misc]
    """apispec's converter, writing ``additionalProperties: false`` for every
    request schema (``StrictSchema``: unknown members are refused). apispec
    itself leaves it out of any schema that has a description. A
    marshmallow-oneofschema union (each game's shape of an answer,
    :class:`.schemas.ByGame`) is a ``oneOf`` with its ``discriminator``
    (apispec-oneofschema's converter), described by its docstring."""

    def schema2jsonschema(self, schema: Any) -> dict[str, Any]:
        jsonschema: dict[str, Any] = super().schema2jsonschema(schema)
        instance = resolve_schema_instance(schema)
        if isinstance(instance, OneOfSchema):
            doc = type(instance).__doc__
            return {**({"description": " ".join(doc.split())} if doc else {}), **jsonschema}
        if isinstance(instance, StrictSchema):
            jsonschema["additionalProperties"] = False
        elif isinstance(instance, DocumentedSchema):
            # A response: the members every answer holds are required, so that
            # a generated client's types need no check for each (issue 23).
            present = type(instance).PRESENT
            required = set(jsonschema.get("required", ()))
            required.update(
                name
                for name in jsonschema.get("properties", {})
                if present is None or name in present
            )
            if required:
                order = list(jsonschema.get("properties", {}))
                jsonschema["required"] = sorted(required, key=order.index)
        # What one field cannot say (e.g. a turn is a play or a pass): a
        # schema's own ``json_schema`` keywords, such as ``oneOf``.
        jsonschema.update(getattr(instance.Meta, "json_schema", {}))
        if isinstance(instance, GameSchema):  # each game's own options and players
            options = super().schema2jsonschema(OptionsSchema)
            spec_games.exact(
                jsonschema,
                options["properties"],
                instance.games,
                instance.clocked,
                spec_games.deal_members() if instance.deal else None,
            )
        one_of = getattr(instance.Meta, "one_of", ())
        if one_of:
            # A body that is exactly one of named shapes (a Sevens turn, a May I?
            # move): ``oneOf`` their schemas, so that a generated client gets a
            # class for each (inline ``oneOf`` members made it give up).
            described = {k: v for k, v in jsonschema.items() if k in ("description", "title")}
            refs = [self.resolve_nested_schema(s) for s in one_of]
            return {**described, "oneOf": refs}
        return jsonschema

    def field2property(self, field: Any) -> dict[str, Any]:
        """apispec's, with a field ``documented_as`` a schema (:class:`.schemas.AsIs`)
        written as a reference to that schema's component, and a text field
        whose ``content_schema`` is a schema as JSON of that schema's component."""
        documented = getattr(field, "documented_as", None)
        if documented is not None:
            return self.resolve_nested_schema(documented)  # type: ignore[no-any-return]
        text = field.metadata.get("text_component")
        if text is not None:  # a name or a call: the rule's pattern, stated once
            return texts.reference(text)
        ret: dict[str, Any] = super().field2property(field)
        content = field.metadata.get("content_schema")
        if content is not None:  # a text holding JSON (:mod:`.schemas_streams`)
            ret["x-contentMediaType"] = "application/json"
            ret["x-contentSchema"] = self.resolve_nested_schema(content)
        return ret

    def field2nullable(self, field: Any, ret: dict[str, Any]) -> dict[str, Any]:
        """A nullable nested schema as ``allOf: [$ref], nullable: true``: apispec's
        ``anyOf`` of the schema and a free-form object made the client generators
        write a union with an anonymous type (openapi-python-client: ``RoundViewType0``)."""
        if field.allow_none and (self.openapi_version.major, self.openapi_version.minor) == (3, 0):
            if "$ref" in ret:
                return {"allOf": [{"$ref": ret.pop("$ref")}], "nullable": True}
            if "allOf" in ret:
                return {"allOf": ret.pop("allOf"), "nullable": True}
        attributes: dict[str, Any] = super().field2nullable(field, ret)
        return attributes


class StrictMarshmallowPlugin(MarshmallowPlugin):
    Converter = StrictConverter


_DOCUMENT: dict[str, dict[str, Any] | None] = {"spec": None}
"""This process's finished OpenAPI document, written when first asked for."""
_LOCK = threading.Lock()


class RefereeApi(Api):  # type: ignore[misc]
    """flask-smorest's ``Api``, documenting every error as RFC 9457 problem+json
    and every request schema as closed (``additionalProperties: false``); its
    spec cites the rules as links to the served rules pages (:func:`link_rules`)."""

    ERROR_SCHEMA = ProblemSchema

    def _init_spec(self, **kwargs: Any) -> None:
        kwargs.setdefault("marshmallow_plugin", StrictMarshmallowPlugin())
        super()._init_spec(**kwargs)

    def init_app(self, app: Any, *args: Any, **kwargs: Any) -> None:
        self._deferred: list[tuple[Any, str, Any]] = []
        super().init_app(app, *args, **kwargs)
        to_dict = self.spec.to_dict

        def finished() -> dict[str, Any]:
            with _LOCK:
                document = _DOCUMENT.get("spec")
                if document is None:
                    for blp, name, parameters in self._deferred:
                        blp.register_views_in_doc(
                            self, self._app, self.spec, name=name, parameters=parameters
                        )
                        self.spec.tag({"name": name, "description": blp.description})
                    document = _with_client_key(to_dict(), self._unlimited_paths())
                    document["components"]["schemas"].update(texts.components())
                    document = _DOCUMENT["spec"] = _with_codes(_linked(spec_games.hoist(document)))
            return copy.deepcopy(document)

        self.spec.to_dict = finished

    def _unlimited_paths(self) -> set[str]:
        """The paths (as the spec writes them) of the endpoints no limit counts
        (:data:`.limits.UNLIMITED_ENDPOINTS`): a client key means nothing there."""
        return {
            re.sub(r"<(?:[^<>:]+:)?([^<>]+)>", r"{\1}", rule.rule)
            for rule in self._app.url_map.iter_rules()
            if rule.endpoint in UNLIMITED_ENDPOINTS
        }

    def register_blueprint(self, blp: Any, *, parameters: Any = None, **options: Any) -> None:
        """flask-smorest's, with the blueprint's views written into the
        document only when it is first asked for (``/openapi.json``,
        ``referee openapi``), and once per process: the document is the same
        for every app (written from code alone), and writing it is most of
        an app's creation (0.7 s of 0.8), which every gunicorn worker and
        every test's app paid."""
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)
        self._deferred.append((blp, name, parameters))

    def _register_responses(self) -> None:
        # flask-smorest's own method, with the error media type ours.
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            content_type = self.DEFAULT_RESPONSE_CONTENT_TYPE
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
                content_type = PROBLEM_JSON
            prepare_response(response, self.spec, content_type)
            self.spec.components.response(status.name, response, lazy=True)
        response = {
            "description": "An error, as RFC 9457 problem details.",
            "schema": ProblemSchema,
        }
        prepare_response(response, self.spec, PROBLEM_JSON)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, response, lazy=True)


INTRODUCTION = """\
A rules referee for card games: it deals or checks a deal, takes each seat's
moves (secret and simultaneous ones too), resolves them, validates claims and
keeps score. Every table endpoint works for every game (`game` in a table's
view says which) and each game adds its own moves. The games (`GET /v1/games`):

"""

GUIDE = """
How to call it: tokens (`Authorization: Bearer <token>`), `Idempotency-Key`,
conditional requests, strict input, errors and events are in
**[the API guide](/docs/api)**; walk-throughs, settings and deployment in
**[the guide](/docs/guide/)**. Every error is RFC 9457
`application/problem+json` with a stable `code` and a `type`
`/problems/{code}`: a page saying what it means and what to do
([every code](/problems/)).
"""


UNSTATED = """
A request that its schema allows may still break a rule the schema cannot
state; the rules refuse it with their codes (422): """


def description() -> str:
    """The spec's ``info.description``: short, so that Swagger UI shows the
    endpoints near the top; the games and presets come from the registry, and
    it names what a schema cannot state (:data:`.spec_games.UNSTATED`)."""
    unstated = UNSTATED + " ".join(spec_games.UNSTATED) + "\n"
    return INTRODUCTION + docs_generated.games_summary() + GUIDE + unstated


CLIENT_KEY_SCHEME = "clientKey"
CLIENT_KEY_TEXT = (
    f"Optional: a front end's own server's key, in `{CLIENT_KEY_HEADER}` beside the players' "
    "`Authorization`. Its requests count on the key's own quotas (requests a second, table "
    "creations and joins a minute) in place of the per-address limits that callers without "
    "a key keep. The operator issues keys (`referee keys create NAME`; Redis keeps only "
    "their hash). A key this service did not issue (unknown, revoked, mistyped) is 401 "
    "`client-key-unknown`. Keep it on the server: a page that sent it would give it to "
    "anyone. [The API guide](/docs/api#client-keys-a-front-ends-own-server)."
)
"""The client key's security scheme (``create_app`` registers it)."""

CLIENT_KEY_REFUSED = (
    f"A `{CLIENT_KEY_HEADER}` this service did not issue (unknown, revoked or mistyped): "
    "`client-key-unknown`."
)

HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def _with_client_key(spec: dict[str, Any], unlimited: set[str]) -> dict[str, Any]:
    """``spec`` whose every operation that a limit counts also takes the client
    key (:mod:`.limits`): beside each of its security requirements, the same
    with the key; an operation that needs none takes the key or nothing. An
    operation that documents no 401 gets the key's."""
    for path, item in spec.get("paths", {}).items():
        if path in unlimited:
            continue
        for method, operation in item.items():
            if method not in HTTP_METHODS:
                continue
            own = operation.get("security") or [{}]
            with_key = [{**requirement, CLIENT_KEY_SCHEME: []} for requirement in own]
            operation["security"] = [*own, *with_key]
            operation["responses"].setdefault(
                "401",
                {
                    "description": CLIENT_KEY_REFUSED,
                    "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
                },
            )
    return spec


def _problem_code(code: str) -> str:
    return f"[`{code}`](/problems/{code})"


CODE_DESCRIPTION = (
    "Stable, machine-readable. Every code, by status (each is a link to its page):\n\n"
)


def _with_codes(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` whose Problem schema lists every code (from the registry), as
    its ``enum`` and in its description, and every round status of every
    game (the ``status`` of each game's round) as ``round_status``'s enum."""
    schemas = spec.get("components", {}).get("schemas", {})
    problem = schemas.get("Problem")
    if problem is not None:
        codes = docs_generated.codes_by_status(_problem_code)
        members = problem["properties"]
        members["code"]["description"] = CODE_DESCRIPTION + codes
        members["code"]["enum"] = docs_generated.all_codes()
        members["round_status"]["enum"] = [*_round_statuses(schemas), None]
    return spec


def _round_statuses(schemas: dict[str, Any]) -> list[str]:
    """Every game's round statuses, from each game's table view's round."""
    found: dict[str, None] = {}
    for member in schemas.get("PublicTable", {}).get("oneOf", ()):
        table = schemas[member["$ref"].rsplit("/", 1)[1]]
        rnd = table["properties"]["round"]["allOf"][0]["$ref"].rsplit("/", 1)[1]
        found.update(dict.fromkeys(schemas[rnd]["properties"]["status"]["enum"]))
    return list(found)


def _linked(value: Any) -> Any:
    if isinstance(value, str):
        return link_rules(value)
    if isinstance(value, dict):
        return {k: _linked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_linked(v) for v in value]
    return value
