"""A target (a figure against its limit: PASS, MISS or SKIP) and the
statistics every section's figures use; below the report and its sections."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

PERCENTILES = (50, 95, 99)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values``, linearly interpolated."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def latency_summary(values: Sequence[float]) -> dict[str, float]:
    """p50, p95, p99 (ms) and the count."""
    out: dict[str, float] = {f"p{q}": percentile(values, q) for q in PERCENTILES}
    out["n"] = len(values)
    return out


def median(values: Sequence[float]) -> float:
    clean = [v for v in values if not math.isnan(v)]
    return statistics.median(clean) if clean else math.nan


def ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


@dataclass(frozen=True)
class Target:
    """One target of issues 6 and 13: ``value`` compared with ``limit``;
    ``skipped`` says why it was not measured (then it is neither met nor missed)."""

    name: str
    value: float
    limit: float
    at_most: bool  # True: value <= limit; False: value >= limit
    unit: str
    detail: str = ""
    skipped: str = ""

    @property
    def met(self) -> bool:
        if self.skipped or math.isnan(self.value):
            return False
        return self.value <= self.limit if self.at_most else self.value >= self.limit

    @property
    def status(self) -> str:
        """PASS, MISS or SKIP."""
        return "SKIP" if self.skipped else "PASS" if self.met else "MISS"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "limit": self.limit,
            "comparison": "<=" if self.at_most else ">=",
            "unit": self.unit,
            "met": self.met,
            "status": self.status,
            "detail": self.detail,
            "skipped": self.skipped,
        }
