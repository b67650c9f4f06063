"""``referee simulate``: automatic players through the pure engine."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios

import pytest

from service.cli import main
from service.games.ship import GAME
from service.games.ship.options import PRESETS
from service.games.ship.players import choose_cards
from service.games.ship.simulate import player_counts


def test_the_automatic_player_keeps_its_longest_suit_and_passes_from_its_shortest() -> None:
    hand = ["AH", "KH", "QH", "2S", "3S", "9D", "4C"]
    assert choose_cards(hand, 1) == ["9D"]  # diamonds and clubs are shortest; D comes first
    assert choose_cards(hand, 2) == ["9D", "4C"]
    # A tie for longest keeps the suit with the higher cards.
    assert choose_cards(["AH", "KH", "2S", "3S", "5D"], 2) == ["5D", "2S"]


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_simulation_is_deterministic_and_adds_up(variant: str) -> None:
    players = player_counts(variant, [4, 5])[0]
    first = GAME.simulation.run(variant, players, 25, 3, {})
    assert GAME.simulation.run(variant, players, 25, 3, {}) == first
    won = first.rounds - first.void
    # Every won round has one winner, or several when shared.
    assert sum(first.wins_by_position) >= won >= first.shared
    if variant != "circle":
        assert sum(first.wins_by_position) == won  # only circle shares rounds
    if won:
        p = first.percentiles
        assert p["p10"] <= p["p50"] <= p["p90"] <= p["max"] <= first.max_exchanges
    assert (first.chips_per_round is not None) == (variant == "ochse")


def test_foster_rounds_never_outlast_two_circuits() -> None:
    summary = GAME.simulation.run("foster", 5, 40, 1, {})
    assert summary.percentiles["max"] <= 2 * 5


def test_cli_prints_json_for_the_allowed_table_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--variant", "ochse", "--players", "3-5", "--rounds", "5", "--jobs", "1"]
    assert main([*args, "--format", "json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert [(f["variant"], f["players"], f["rounds"]) for f in figures] == [("ochse", 4, 5)]


def test_cli_refuses_an_unknown_variant(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--variant", "snap"]) == 2
    assert "no variant 'snap'" in capsys.readouterr().err


def test_cli_refuses_numbers_the_rules_refuse(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--variant", "foster", "--rounds", "0"]) == 2
    assert "--rounds must be at least 1" in capsys.readouterr().err
    assert main(["simulate", "--variant", "foster", "--max-exchanges", "0", "--jobs", "1"]) == 2
    assert "max_exchanges must be 1..10000 or null" in capsys.readouterr().err


def test_simulate_plays_sevens_from_three_to_eight_players(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["simulate", "--variant", "sevens", "--players", "3-8", "--rounds", "5"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| sevens |")]
    assert [int(r.split("|")[2]) for r in rows] == [3, 4, 5, 6, 7, 8]
    assert out.startswith("Sevens\n")
    # Wins by seat from the opener: one share per seat.
    assert all(len(r.split("|")[9].split()) == int(r.split("|")[2]) for r in rows)


def test_simulate_one_game_skips_presets_that_only_rename_another(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["simulate", "--game", "sevens", "--players", "4", "--rounds", "3"]) == 0
    out = capsys.readouterr().out
    names = [line.split("|")[1].strip() for line in out.splitlines()[4:] if line.startswith("|")]
    assert names[0] == "sevens" and "parliament" not in names and "fan-tan-two-decks" not in names
    assert main(["simulate", "--game", "chess"]) == 2


def test_the_figures_are_the_same_for_any_number_of_processes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["simulate", "--game", "sevens", "--players", "4,5", "--rounds", "4", "--seed", "7"]
    printed = []
    for jobs in ("1", "2", "3"):
        assert main([*args, "--format", "json", "--jobs", jobs]) == 0
        printed.append(capsys.readouterr().out)
    assert printed[0] == printed[1] == printed[2]
    runs = json.loads(printed[0])
    assert [(r["variant"], r["players"]) for r in runs][:2] == [("sevens", 4), ("sevens", 5)]
    assert main([*args, "--jobs", "0"]) == 2
    assert "--jobs must be at least 1" in capsys.readouterr().err


def test_a_long_run_is_played_in_pieces_on_every_core_with_the_same_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from service.cli import PIECE_ROUNDS
    from service.games.sevens.simulate import play, summary

    rounds = 2 * PIECE_ROUNDS + 7  # three pieces
    args = ["simulate", "--variant", "sevens", "--players", "4", "--rounds", str(rounds)]
    printed = []
    for jobs in ("1", "2"):
        assert main([*args, "--seed", "3", "--format", "json", "--jobs", jobs]) == 0
        printed.append(capsys.readouterr())
    assert printed[0].out == printed[1].out
    # One run of three pieces on as many processes as pieces (here two cores' worth).
    assert "1 run of 107 rounds (1 variant, 4 players) on 2 processes" in printed[1].err
    (run,) = json.loads(printed[0].out)
    assert run["rounds"] == rounds and run["seed"] == 3
    # The figures of the pieces summed up: the first from the seed itself.
    facts = [
        *play("sevens", 4, PIECE_ROUNDS, 3),
        *play("sevens", 4, PIECE_ROUNDS, 3 * 1_000_003 + PIECE_ROUNDS),
        *play("sevens", 4, 7, 3 * 1_000_003 + 2 * PIECE_ROUNDS),
    ]
    assert run == summary("sevens", 4, 3, {}, facts).to_json()


def test_it_says_what_it_is_about_to_do_and_each_run_it_finishes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # stderr is no terminal here: a line per run, no bar.
    args = ["simulate", "--variant", "ochse", "--players", "3-5", "--rounds", "5", "--jobs", "2"]
    assert main(args) == 0
    said = capsys.readouterr().err.splitlines()
    assert re.fullmatch(
        r"referee: 1 run of 5 rounds \(1 variant, 4 players\) on 1 process; about \d+ s", said[0]
    ), said[0]
    assert re.fullmatch(r"referee: 1/1 done: ochse, 4 players, 5 rounds \(\d+ s so far\)", said[1])
    assert len(said) == 2


def test_on_a_terminal_it_draws_a_progress_bar_on_stderr() -> None:
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 100 columns
    run = subprocess.run(
        [sys.executable, "-m", "service.cli", "simulate", "--variant", "sevens", "--rounds", "6"],
        stdout=subprocess.PIPE,
        stderr=follower,
        timeout=120,
        check=False,
    )
    os.close(follower)
    drawn = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal's other end is closed: all read
            break
        if not chunk:
            break
        drawn += chunk
    os.close(leader)
    assert run.returncode == 0
    assert run.stdout.decode().startswith("Sevens\n")  # the figures stay on stdout
    text = drawn.decode()
    assert "referee: 1 run of 6 rounds" in text
    assert "6/6" in text and "round" in text  # tqdm's bar, as it finished
    assert "done:" not in text  # the bar, not the lines
