"""schemathesis as a user runs it (issue 42): its CLI with its defaults,
from an empty folder (no schemathesis.toml, no hooks, every default check
and phase), against a real ``referee serve``. It may still report
schema-valid requests refused, but only for a rule no JSON Schema can state,
each named in the spec's descriptions: every failure it finds is a
``positive_data_acceptance`` whose answer is such a refusal (one of
:data:`.rules.RULE_CODES`, and named in the spec), and no other check fails
on any request. The run's cassette (``--report vcr``, which records every
request and answer without changing what is tested) holds every check of
every request, so that a refusal of another kind behind one of these is not
hidden by the CLI's one example per failure.

The rules it still meets (the spec says each: ``UNSTATED`` in its
description, and the request schema's own description): options that make
no consistent game with the players, a hand or deal the game cannot hold
(a card twice in two spellings, not of the deck, the wrong size), a card not
in the hand, melds the game cannot hold, an event cursor the log cannot go
on from, an ``Idempotency-Key`` sent again with another body.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from service.edge.ignorable import ignorable
from service.edge.names import bot_like

from ..conftest import Served
from ..helpers import openapi_spec
from .rules import RULE_CODES, pointed
from .test_schemathesis import SEED

pytestmark = pytest.mark.timeout(900)  # its run: 3 minutes here, more on a busy machine

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
UNLISTED = ("Co", "Cn", "Cs")
"""The text rule's categories that the ``Name`` and ``Call`` patterns do not
list (:mod:`service.spec.texts`): the rule is named, not stated."""


def body_of(message: dict[str, Any] | None) -> Any:
    """The JSON body of a recorded request or answer (``None`` if none)."""
    body = (message or {}).get("body") or {}
    text = body.get("string") if isinstance(body, dict) else None
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None


def refused_for_a_named_rule(interaction: dict[str, Any]) -> bool:
    """Whether the answer refuses the request for a rule the spec names and no
    schema states: a code of :data:`.rules.RULE_CODES`, or ``invalid-request``
    whose every error points at a name or ``call`` holding a code point of a
    category the ``Name`` pattern does not list (private use, unassigned), or
    at a person's name that passes for a bot's (RULES.md 5.1)."""
    problem = body_of(interaction.get("response"))
    if not isinstance(problem, dict):
        return False
    if problem.get("code") in RULE_CODES:
        return True
    errors = problem.get("errors") or []
    if problem.get("code") != "invalid-request" or not errors:
        return False
    sent = body_of(interaction.get("request"))
    try:
        texts = [pointed(sent, e["pointer"]) for e in errors]
    except (KeyError, IndexError, TypeError):
        return False
    return all(isinstance(t, str) and (unlisted(t) or bot_like(t)) for t in texts)


def unlisted(text: str) -> bool:
    """Whether ``text`` holds a code point of a category the ``Name`` pattern does
    not list, or a default-ignorable one (those above U+FFFF are not listed)."""
    return any(unicodedata.category(ch) in UNLISTED or ignorable(ch) for ch in text)


@pytest.fixture()
def cassette(served: Served, tmp_path: Path) -> list[dict[str, Any]]:
    empty = tmp_path / "empty"
    empty.mkdir()
    path = tmp_path / "cassette.yaml"
    # The document the service serves, read as a user's first look would:
    # schemathesis gives loading it its 10-s request timeout, which a busy
    # machine's first render in a worker outlasted (an empty cassette).
    spec = empty / "openapi.json"
    with urllib.request.urlopen(f"{served.base}/openapi.json", timeout=120) as answer:
        spec.write_bytes(answer.read())
    environment = {k: v for k, v in os.environ.items() if not k.startswith("SCHEMATHESIS")}
    command = [
        str(SCHEMATHESIS), "run", str(spec), "--url", served.base, "--no-color",
        "--seed", str(SEED), "--report", "vcr", "--report-vcr-path", str(path),
    ]  # fmt: skip
    ran = subprocess.run(
        command, cwd=empty, env=environment, capture_output=True, text=True, timeout=900
    )
    told = ran.stdout[-3000:] + ran.stderr[-3000:]
    assert path.exists(), told
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    recorded = yaml.load(path.read_text(), Loader=loader)  # noqa: S506
    assert recorded and recorded.get("http_interactions"), told
    return list(recorded["http_interactions"])


def test_schemathesis_with_its_defaults_refuses_only_what_no_schema_states(
    cassette: list[dict[str, Any]],
) -> None:
    spec_text = yaml.safe_dump(openapi_spec())
    assert len(cassette) > 2000, "schemathesis ran too few requests"
    refused: Counter[tuple[str, str]] = Counter()
    wrong = []
    for interaction in cassette:
        request = interaction.get("request") or {}
        where = f"{request.get('method')} {request.get('uri')}"
        for check in interaction.get("checks") or ():
            if check["status"] != "FAILURE":
                continue
            problem = body_of(interaction.get("response"))
            code = problem.get("code") if isinstance(problem, dict) else None
            if check["name"] == "positive_data_acceptance" and refused_for_a_named_rule(
                interaction
            ):
                refused[(str(code), where.split("?")[0])] += 1
                continue
            wrong.append((where, check["name"], code, str(check.get("message"))[:300]))
    assert not wrong, wrong[:10]
    # Each rule it met is named in the spec (a schema's description, or UNSTATED).
    for code, _where in refused:
        assert f"`{code}`" in spec_text, code
