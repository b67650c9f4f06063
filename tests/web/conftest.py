"""Names the folder of the web table's screenshots at the end of the run."""

from __future__ import annotations

from typing import Any

from .test_play_browser import ARTEFACTS


def pytest_terminal_summary(terminalreporter: Any) -> None:
    shots = sorted(ARTEFACTS.glob("*.png")) if ARTEFACTS.is_dir() else []
    if shots:
        terminalreporter.write_line(f"web table screenshots ({len(shots)}): {ARTEFACTS}")
