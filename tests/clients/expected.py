"""What the README's three walk-throughs print, as each generated client must
see it (their submitted deals are in ``examples.json``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EXAMPLES: dict[str, Any] = json.loads((Path(__file__).parent / "examples.json").read_text())

EXPECTED: dict[str, Any] = {
    "ship": {
        "resolved": [False, False, False, True, False, False, False, True],
        "received": ["9H"],
        "hand": ["AH", "KH", "9H", "8H", "5H", "2H", "QC"],
        "early_claim": [422, "claim-not-winning"],
        "winners": [0],
        "exchanges": 2,
        "wins": [1, 0, 0, 0],
        "events": [
            "table-created",
            "round-dealt",
            "pass-chosen",
            "pass-chosen",
            "pass-chosen",
            "pass-chosen",
            "exchange-resolved",
            "claim-rejected",
            "pass-chosen",
            "pass-chosen",
            "pass-chosen",
            "pass-chosen",
            "exchange-resolved",
            "claim-accepted",
            "round-won",
        ],
    },
    "sevens": {
        "opener": [True, ["7D"]],
        "refused_pass": [422, "must-play"],
        "winner": 2,
        "cards_left": [4, 1, 0, 3],
        "chips": [-3, 0, 5, -2],
        "turns": 49,
        "pot": 5,
    },
    "may_i": {
        "ben_may": ["take_discard", "decline"],
        "declined": ["may-i", 1, "KH"],
        "ben_asks": [422, "may-i-not-yours"],
        "dan_asks": [3, True],
        "closed": [False, "stock", 1],
        "cat_hand": ["KS", "2S", "KH", "TH", "6H", "4H", "AD", "KD", "8D", "4D", "QC", "6C"],
        "discard_fits": [422, "discard-fits"],
        "after": [2, "draw", 6],
        "melds": [["5H", "5S", "5C"], ["9D", "9H", "9S", "9C"]],
        "discard_top": "JS",
        "cards": [10, 3, 12, 10],
    },
}
