"""Each run's pass@k within each category (and difficulty) of a comparison: the problems
graded in every run split by a field their records carry, each part's pass@k the mean over
its problems with its 95% interval (standard error over those problems: within one category
there are no clusters left to account for)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..scoring.intervals import mean_interval
from ..scoring.passk import pass_at_k

# The record fields a comparison is broken down by, where the problems carry them.
FACETS = ("category", "difficulty")

Key = tuple[str, str]  # (suite, task_id)


@dataclasses.dataclass
class Breakdown:
    """One part of a suite's problems (``facet`` = ``value``) and each run's pass@k on it."""

    facet: str
    suite: str
    value: str
    problems: int
    # run name -> k -> (pass@k, its 95% interval); None where a run has fewer than k samples
    scores: dict[str, dict[int, tuple[float, tuple[float, float]] | None]]

    def to_json(self, ks: Sequence[int]) -> dict[str, Any]:
        return {
            "facet": self.facet,
            "suite": self.suite,
            "value": self.value,
            "problems": self.problems,
            "runs": [
                {
                    "name": name,
                    "pass@k": {
                        str(k): {"value": None, "ci": None}
                        if by_k[k] is None
                        else {"value": by_k[k][0], "ci": list(by_k[k][1])}  # type: ignore[index]
                        for k in ks
                    },
                }
                for name, by_k in self.scores.items()
            ],
        }


def facet_values(
    samples: Sequence[Mapping[Key, Sequence[Mapping[str, Any]]]], problems: Sequence[Key]
) -> dict[str, dict[Key, str]]:
    """Each facet's value for each problem: the first non-empty value any run's records give."""
    values: dict[str, dict[Key, str]] = {facet: {} for facet in FACETS}
    for key in problems:
        for facet in FACETS:
            for run in samples:
                found = next((str(r[facet]) for r in run.get(key, ()) if r.get(facet)), "")
                if found:
                    values[facet][key] = found
                    break
    return values


def breakdowns(
    runs: Sequence[tuple[str, Mapping[Key, tuple[int, int]]]],
    values: Mapping[str, Mapping[Key, str]],
    problems: Sequence[Key],
    ks: Sequence[int],
) -> list[Breakdown]:
    """The breakdowns of ``problems`` for the runs given as (name, problem -> (graded,
    passed)): for each facet and suite where the problems have at least two values, one
    part per value, in the order facet, suite, value. Problems without a value are in none."""
    parts: dict[tuple[str, str, str], list[Key]] = {}
    for facet in FACETS:
        for key in problems:
            value = values.get(facet, {}).get(key, "")
            if value:
                parts.setdefault((facet, key[0], value), []).append(key)
    split = {
        (facet, suite)
        for facet, suite, _ in parts
        if sum(f == facet and s == suite for f, s, _ in parts) > 1
    }
    result = []
    for facet in FACETS:
        for (f, suite, value), keys in sorted(parts.items()):
            if f != facet or (facet, suite) not in split:
                continue
            scores: dict[str, dict[int, tuple[float, tuple[float, float]] | None]] = {}
            for name, counts in runs:
                scores[name] = {}
                for k in ks:
                    per_problem = [pass_at_k(*counts[key], k) for key in keys]
                    if any(v is None for v in per_problem):
                        scores[name][k] = None
                        continue
                    values_k: list[float] = per_problem  # type: ignore[assignment]
                    scores[name][k] = (
                        math.fsum(values_k) / len(values_k),
                        mean_interval(values_k),
                    )
            result.append(Breakdown(facet, suite, value, len(keys), scores))
    return result
