"""OpenAPI links between the table operations: how the answer of one call
feeds the next (creation -> rounds -> passes -> claims, or Sevens' turns,
or May I?'s moves, requests and answers; a table's view ->
its events from ``last_event`` -> the next page). The stateful
contract test (tests/contract) walks them with real tokens.
"""

from __future__ import annotations

from typing import Any

TABLE_ID = "$response.body#/table_id"
SAME_TABLE = "$request.path.table_id"
LINKS: dict[str, dict[int, dict[str, Any]]] = {
    # OpenAPI links: how the output of one call feeds the next (the stateful
    # contract test walks them: creation, rounds, passes, claims).
    "createTable": {
        201: {
            "getTable": {"table_id": TABLE_ID},
            "dealRound": {"table_id": TABLE_ID},
            "finishMatch": {"table_id": TABLE_ID},
            "deleteTable": {"table_id": TABLE_ID},
            "getEvents": {"table_id": TABLE_ID},
            "getRounds": {"table_id": TABLE_ID},
            "getSeat": {"table_id": TABLE_ID, "seat": "$response.body#/seat_tokens/0/seat"},
        }
    },
    "dealRound": {
        201: {
            "getRound": {"table_id": SAME_TABLE, "round_no": "$response.body#/round"},
            "choosePass": {
                "table_id": SAME_TABLE,
                "round_no": "$response.body#/round",
                "exchange_no": "$response.body#/table/round/exchange",
                "seat": "$response.body#/dealer",
            },
            "claim": {"table_id": SAME_TABLE, "round_no": "$response.body#/round"},
            "getSeat": {"table_id": SAME_TABLE, "seat": "$response.body#/dealer"},
            "playTurn": {
                "table_id": SAME_TABLE,
                "round_no": "$response.body#/round",
                "turn_no": "$response.body#/table/round/turn",
            },
            "mayIMove": {
                "table_id": SAME_TABLE,
                "round_no": "$response.body#/round",
                "move_no": "$response.body#/table/round/move",
            },
        }
    },
    "mayIMove": {
        200: {
            "mayIMove": {
                "table_id": SAME_TABLE,
                "round_no": "$response.body#/round",
                "move_no": "$response.body#/next_move",
            },
            "mayIAsk": {"table_id": SAME_TABLE, "round_no": "$response.body#/round"},
            "getSeat": {"table_id": SAME_TABLE, "seat": "$response.body#/on_turn"},
            "getRound": {"table_id": SAME_TABLE, "round_no": "$response.body#/round"},
            "getTable": {"table_id": SAME_TABLE},
        }
    },
    "mayIAsk": {
        200: {
            "mayIAnswer": {
                "table_id": SAME_TABLE,
                "round_no": "$response.body#/round",
                "offer_no": "$response.body#/offer",
            },
            "getRound": {"table_id": SAME_TABLE, "round_no": "$response.body#/round"},
            "getTable": {"table_id": SAME_TABLE},
        }
    },
    "mayIAnswer": {
        200: {
            "mayIAnswer": {
                "table_id": SAME_TABLE,
                "round_no": "$response.body#/round",
                "offer_no": "$response.body#/offer",
            },
            "mayIAsk": {"table_id": SAME_TABLE, "round_no": "$response.body#/round"},
            "getTable": {"table_id": SAME_TABLE},
        }
    },
    "playTurn": {
        200: {
            "playTurn": {
                "table_id": SAME_TABLE,
                "round_no": "$response.body#/round",
                "turn_no": "$response.body#/next_turn",
            },
            "getSeat": {"table_id": SAME_TABLE, "seat": "$response.body#/next_seat"},
            "getRound": {"table_id": SAME_TABLE, "round_no": "$response.body#/round"},
            "getTable": {"table_id": SAME_TABLE},
        }
    },
    "choosePass": {
        200: {
            "choosePass": {
                "table_id": SAME_TABLE,
                "round_no": "$response.body#/round",
                "exchange_no": "$response.body#/exchange",
                "seat": "$request.path.seat",
            },
            "claim": {"table_id": SAME_TABLE, "round_no": "$response.body#/round"},
            "getSeat": {"table_id": SAME_TABLE, "seat": "$request.path.seat"},
            "getRound": {"table_id": SAME_TABLE, "round_no": "$response.body#/round"},
        }
    },
    "getTable": {
        200: {"getEvents": {"table_id": SAME_TABLE, "after": "$response.body#/last_event"}},
    },
    "getEvents": {
        200: {"getEvents": {"table_id": SAME_TABLE, "after": "$response.body#/next_after"}},
    },
    "getRounds": {
        200: {"getRounds": {"table_id": SAME_TABLE, "after": "$response.body#/next_after"}},
    },
    "claim": {
        200: {
            "getRound": {"table_id": SAME_TABLE, "round_no": "$response.body#/round"},
            "dealRound": {"table_id": SAME_TABLE},
            "getTable": {"table_id": SAME_TABLE},
        }
    },
}


def operation(operation_id: str) -> dict[str, Any]:
    """``blp.doc`` arguments: the operation's id and the links of its answers."""
    links = {
        status: {
            "links": {
                f"{operation_id}-{target}": {"operationId": target, "parameters": parameters}
                for target, parameters in targets.items()
            }
        }
        for status, targets in LINKS.get(operation_id, {}).items()
    }
    return {"operationId": operation_id, **({"responses": links} if links else {})}
