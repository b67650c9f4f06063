"""The JSON of the answers, as Flask writes it, by orjson (issue 44)."""

from __future__ import annotations

from typing import Any

from flask.json.provider import DefaultJSONProvider

from ..json_text import compact

COMPACT = (",", ":")


class CompactJSONProvider(DefaultJSONProvider):
    """Flask's JSON provider whose compact text (every answer out of debug
    mode: ``jsonify``, flask-smorest's responses) is written by
    :func:`service.json_text.compact`: the same values and key order (sorted),
    characters beyond ASCII as UTF-8. Any other call (indented, or with
    other arguments) is the standard provider's."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs.keys() == {"separators"} and kwargs["separators"] == COMPACT:
            return compact(obj, sort_keys=self.sort_keys, default=self.default)
        return super().dumps(obj, **kwargs)
