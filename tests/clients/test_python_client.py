"""The Python client generated from openapi.yaml (openapi-python-client, the
version pinned in pyproject.toml, as ``make clients`` runs it) plays the
README's walk-throughs against a real ``referee serve``: the worked example
of RULES.md 2.10, a Sevens round and a May I? turn. It is generated afresh
into a temporary folder (not committed: the same generator and spec give the
same package), so it always matches the spec the service serves."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ..conftest import Served
from .expected import EXAMPLES, EXPECTED

ROOT = Path(__file__).resolve().parents[2]


def generate(folder: Path) -> Path:
    """The client as ``make clients`` writes it (a package with its
    metadata, ``--meta pdm``), in ``folder``."""
    make = (ROOT / "Makefile").read_text()
    assert "--meta pdm --output-path clients/python" in make
    subprocess.run(
        [
            str(Path(sys.executable).with_name("openapi-python-client")),
            "generate",
            "--path", str(ROOT / "openapi.yaml"),
            "--config", str(ROOT / "clients" / "python-client.yaml"),
            "--meta", "pdm",
            "--output-path", str(folder),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return folder


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate(tmp_path_factory.mktemp("python-client") / "client")


@pytest.fixture(scope="module")
def client(generated: Path) -> Iterator[ModuleType]:
    folder = generated
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("card_referee_client")
    finally:
        sys.path.remove(str(folder))


class Operations:
    """``part(client, "api.tables").get_seat``: the module of one operation."""

    def __init__(self, package: str) -> None:
        self.package = package

    def __getattr__(self, name: str) -> ModuleType:
        return importlib.import_module(f"{self.package}.{name}")


def part(client: ModuleType, name: str) -> Any:
    if name.startswith("api."):
        return Operations(f"{client.__name__}.{name}")
    return importlib.import_module(f"{client.__name__}.{name}")


def test_the_generated_client_has_one_function_per_operation(client: ModuleType) -> None:
    tables = importlib.import_module(f"{client.__name__}.api.tables")
    assert {"create_table", "deal_round", "get_table", "get_seat", "choose_pass", "claim"} <= {
        p.stem for p in Path(str(tables.__file__)).parent.glob("*.py")
    }
    models = part(client, "models")
    # A Sevens turn and a May I? move are named shapes, not anonymous unions.
    assert {"TurnPlay", "TurnPass", "DrawMove", "LayDownMove", "LayOffMove"} <= set(dir(models))
    # A new table is one of each game's shapes, named by its first preset.
    assert {"CreateTableClassic", "CreateTableSevens", "CreateTableMayI"} <= set(dir(models))


def test_the_python_client_plays_the_readme(client: ModuleType, served: Served) -> None:
    got = {}
    for name, play in (("ship", play_ship), ("sevens", play_sevens), ("may_i", play_may_i)):
        table = Table(client, served.base, EXAMPLES[name]["table"])
        try:
            got[name] = play(client, table)
        finally:
            table.close()
    assert got == EXPECTED


class Table:
    """A table made by the generated client, and a client per token."""

    def __init__(self, client: ModuleType, base: str, body: dict[str, Any]) -> None:
        self.c, self.base = client, base
        api, models = part(client, "api.tables"), part(client, "models")
        self.public = client.Client(base_url=base)
        created = api.create_table.sync(client=self.public, body=create_table(models, body))
        assert isinstance(created, models.CreatedTable), created
        self.id = created.table_id
        self.host = self.auth(created.host_token)
        self.seats = [self.auth(s.token) for s in created.seat_tokens]

    def auth(self, token: str) -> Any:
        return self.c.AuthenticatedClient(base_url=self.base, token=token)

    def close(self) -> None:
        for each in (self.public, self.host, *self.seats):
            each.get_httpx_client().close()

    def deal(self, body: dict[str, Any]) -> Any:
        api, models = part(self.c, "api.tables"), part(self.c, "models")
        dealt = api.deal_round.sync(self.id, client=self.host, body=models.Deal.from_dict(body))
        assert isinstance(dealt, models.RoundStarted), dealt
        return dealt

    def view(self, seat: int) -> Any:
        return part(self.c, "api.tables").get_seat.sync(self.id, seat, client=self.seats[seat])

    def table(self) -> Any:
        return part(self.c, "api.tables").get_table.sync(self.id, client=self.public)


def create_table(models: Any, body: dict[str, Any]) -> Any:
    """The body as the one ``oneOf`` member (``CreateTableClassic``...: each
    game's presets with their own options and players) that takes it."""
    names = sorted(
        n
        for n in dir(models)
        if n.startswith("CreateTable") and "first_dealer" in getattr(models, n).__annotations__
    )  # the members, not their parts (``CreateTableClassicVariant``...)
    for name in names:
        try:
            return getattr(models, name).from_dict(body)
        except (KeyError, ValueError, TypeError):
            continue
    raise AssertionError(f"no member of {names} takes {body}")


def refused(answer: Any) -> list[Any]:
    return [answer.status, answer.code]


def play_ship(client: ModuleType, t: Table) -> dict[str, Any]:
    api, models = part(client, "api.tables"), part(client, "models")
    example = EXAMPLES["ship"]
    t.deal({"hands": example["hands"]})
    resolved, early = [], None
    for number, cards in enumerate(example["passes"], start=1):
        for seat, card in enumerate(cards):
            body = models.Pass(cards=[card])
            answer = api.choose_pass.sync(t.id, 1, number, seat, client=t.seats[seat], body=body)
            resolved.append(answer.resolved)
        if number == 1:
            after = t.view(0)
            early = refused(api.claim.sync(t.id, 1, client=t.seats[0]))
    won = api.claim.sync(t.id, 1, client=t.seats[0])
    events = api.get_events.sync(t.id, client=t.public, after=0)
    return {
        "resolved": resolved,
        "received": after.received,
        "hand": after.hand,
        "early_claim": early,
        "winners": won.result.winners,
        "exchanges": won.result.exchanges,
        "wins": [s.wins for s in t.table().seats],
        "events": [e.type_ for e in events.events],  # an Event: seq, at_ms, type_ and the rest
    }


def play_sevens(client: ModuleType, t: Table) -> dict[str, Any]:
    sevens, models = part(client, "api.sevens"), part(client, "models")
    t.deal({"hands": EXAMPLES["sevens"]["hands"]})
    opener = t.view(2)
    first = [opener.on_turn, opener.playable]
    sevens.play_turn.sync(t.id, 1, 1, client=t.seats[2], body=models.TurnPlay(play="7D"))
    refusal = sevens.play_turn.sync(t.id, 1, 2, client=t.seats[3], body=models.TurnPass(pass_=True))
    while (table := t.table()).round_.status == "playing":
        seat, view = table.round_.on_turn, t.view(table.round_.on_turn)
        body = models.TurnPlay(play=view.playable[0]) if view.playable else models.TurnPass(True)
        sevens.play_turn.sync(t.id, 1, table.round_.turn, client=t.seats[seat], body=body)
    result = table.last_result
    return {
        "opener": first,
        "refused_pass": refused(refusal),
        "winner": result.winner,
        "cards_left": result.cards_left,
        "chips": result.chips,
        "turns": result.turns,
        "pot": result.pot,
    }


def play_may_i(client: ModuleType, t: Table) -> dict[str, Any]:
    may_i, models = part(client, "api.may_i"), part(client, "models")
    t.deal(EXAMPLES["may_i"]["deal"])

    def move(number: int, seat: int, body: Any) -> Any:
        return may_i.may_i_move.sync(t.id, 1, number, client=t.seats[seat], body=body)

    ben_may = t.view(1).may
    declined = move(1, 1, models.DeclineMove(decline=True))
    ben_asks = may_i.may_i_ask.sync(t.id, 1, client=t.seats[1], body=models.Ask(offer=1))
    dan_asks = may_i.may_i_ask.sync(t.id, 1, client=t.seats[3], body=models.Ask(offer=1))
    may_i.may_i_answer.sync(t.id, 1, 1, 2, client=t.seats[2], body=models.Answer(allow=False))
    closed = may_i.may_i_answer.sync(
        t.id, 1, 1, 0, client=t.seats[0], body=models.Answer(allow=True)
    )
    cat_hand = t.view(2).hand
    move(2, 1, models.DrawMove(draw=True))
    move(3, 1, models.LayDownMove(lay_down=[["5H", "5S", "5C"], ["9D", "9H", "9S"]]))
    fits = move(4, 1, models.DiscardMove(discard="9C"))
    move(4, 1, models.LayOffMove(lay_off=models.LayOff(card="9C", meld=2)))
    after = move(5, 1, models.DiscardMove(discard="JS"))
    table = t.table()
    return {
        "ben_may": ben_may,
        "declined": [declined.step, declined.may_i.offer, declined.may_i.card],
        "ben_asks": refused(ben_asks),
        "dan_asks": [dan_asks.current_offer.asker, dan_asks.open_],
        "closed": [closed.open_, closed.step, closed.on_turn],
        "cat_hand": cat_hand,
        "discard_fits": refused(fits),
        "after": [after.on_turn, after.step, after.next_move],
        "melds": [m.cards for m in table.round_.melds],
        "discard_top": table.round_.discard_top,
        "cards": [s.cards for s in table.seats],
    }


def test_the_python_client_installs_with_its_dependencies_in_a_fresh_venv(
    generated: Path, served: Served, tmp_path: Path
) -> None:
    """`pip install` of the generated package, in a venv with nothing else,
    installs what it imports (httpx, attrs): it then reads the games."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", str(generated)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    script = (
        "import sys\n"
        "from card_referee_client import Client\n"
        "from card_referee_client.api.variants import list_games\n"
        "games = list_games.sync(client=Client(base_url=sys.argv[1]))\n"
        "print(' '.join(g.name for g in games.games))\n"
    )
    ran = subprocess.run(
        [str(python), "-c", script, served.base], capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["my-ship-sails", "sevens", "may-i"]
