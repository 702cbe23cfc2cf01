"""Each run's pass@k within each category (and difficulty, and release window) of a
comparison: the problems graded in every run split by a field their records carry, each
part's pass@k the mean over its problems with its 95% interval (standard error over those
problems: within one category there are no clusters left to account for).

A release window is a quarter (``2024-Q3``), a month (``2024-08``) or a year of the
problem's ``contest_date`` (LiveCodeBench's), as ``--codegen-date-window`` says: the
problems released after a model's cutoff are then a part of their own."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..scoring.intervals import interval_text, mean_interval
from ..scoring.passk import pass_at_k, per_problem
from .terminal import aligned

# The record fields a comparison is broken down by, where the problems carry them.
FACETS = ("category", "difficulty")
DATE_FIELD = "contest_date"  # broken down by windows of it (--codegen-date-window)
WINDOWS = ("quarter", "month", "year")

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
    keys: list[Key] = dataclasses.field(default_factory=list)  # its problems
    # A release window's pairs of runs at the smallest k, as the comparison's own pairs are
    # in its JSON (with "a" and "b" and the Holm-adjusted "p_holm"); empty for other facets.
    pairs: list[dict[str, Any]] = dataclasses.field(default_factory=list)

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
                        else {"value": by_k[k][0], "ci": listed_interval(by_k[k][1])}  # type: ignore[index]
                        for k in ks
                    },
                }
                for name, by_k in self.scores.items()
            ],
            "pairs": self.pairs,
        }


def date_window(date: str, window: str) -> str:
    """The ``window`` (quarter, month, year) an ISO ``date`` falls in: ``2024-Q3``,
    ``2024-08``, ``2024``; "" for a date that is not ISO."""
    year, month = date[:4], date[5:7]
    if not (year.isdigit() and month.isdigit() and date[4:5] == "-" and 1 <= int(month) <= 12):
        return ""
    if window == "month":
        return f"{year}-{month}"
    if window == "quarter":
        return f"{year}-Q{(int(month) - 1) // 3 + 1}"
    return year


def facet_values(
    samples: Sequence[Mapping[Key, Sequence[Mapping[str, Any]]]],
    problems: Sequence[Key],
    window: str = "quarter",
) -> dict[str, dict[Key, str]]:
    """Each facet's value for each problem: the first non-empty value any run's records give;
    with a ``window`` of :data:`WINDOWS`, also that window of the problem's contest date (the
    facet is named by the window: "quarter")."""
    fields = {facet: facet for facet in FACETS}
    if window in WINDOWS:
        fields[window] = DATE_FIELD
    values: dict[str, dict[Key, str]] = {facet: {} for facet in fields}
    for key in problems:
        for facet, field in fields.items():
            for run in samples:
                found = next((str(r[field]) for r in run.get(key, ()) if r.get(field)), "")
                if found and field == DATE_FIELD:
                    found = date_window(found, window)
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
    for facet in values:
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
    for facet in values:
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
            result.append(Breakdown(facet, suite, value, len(keys), scores, keys))
    return result


def breakdown_lines(
    parts: Sequence[Breakdown], names: Sequence[str], ks: Sequence[int]
) -> list[str]:
    """Each run's pass@k ± its 95% interval in each category (difficulty, release window):
    one table per facet and suite, a row per value (and k), a column per run (``names``);
    after a release window's table, its pairs."""
    lines: list[str] = []
    tables: dict[tuple[str, str], list[Breakdown]] = {}
    for part in parts:
        tables.setdefault((part.facet, part.suite), []).append(part)
    for (facet, suite), members in tables.items():
        lines.append("")
        lines.append(f"by {facet} ({suite}): pass@k ± its 95% interval over the {facet}'s problems")
        table = [[facet, "problems", *(["k"] if len(ks) > 1 else []), *names]]
        for part in members:
            for k in ks:
                cells = []
                for name in names:
                    score = part.scores[name][k]
                    cells.append("n/a" if score is None else interval_text(*score))
                table.append(
                    [part.value, str(part.problems), *([str(k)] if len(ks) > 1 else []), *cells]
                )
        lines += aligned(table)
        paired = [part for part in members if part.pairs]
        if paired:
            lines.append("")
            lines.append(
                f"pairs by {facet} ({suite}) at pass@{min(ks)} (Holm's correction within each "
                f"{facet})"
            )
            table = [[facet, "a", "b", "diff", "95% CI", "p", "p (Holm)", "", "test"]]
            for part in paired:
                for pair in part.pairs:
                    low, high = pair["ci"]
                    table.append(
                        [
                            part.value,
                            pair["a"],
                            pair["b"],
                            f"{pair['diff']:+.3f}",
                            f"[{low:+.3f}, {high:+.3f}]",
                            f"{pair['p']:.3g}",
                            f"{pair['p_holm']:.3g}",
                            "*" if pair["significant"] else "",
                            pair["test"],
                        ]
                    )
            lines += aligned(table)
    return lines


def run_windows(
    records: Sequence[Mapping[str, Any]], name: str, ks: Sequence[int], window: str
) -> list[Breakdown]:
    """One run's pass@k by release window (``--codegen-date-window``): a part per window of
    each suite whose problems fall in at least two (none for "off"), its run called ``name``."""
    if window not in WINDOWS:
        return []
    counts = per_problem(records)
    samples: dict[Key, list[Mapping[str, Any]]] = {}
    for record in records:
        if record.get(DATE_FIELD):
            samples.setdefault((str(record["suite"]), str(record["task_id"])), []).append(record)
    problems = sorted(key for key in samples if counts.get(key, (0, 0))[0] > 0)
    values = {window: facet_values([samples], problems, window)[window]}
    return breakdowns([(name, counts)], values, problems, ks)


def window_lines(
    records: Sequence[Mapping[str, Any]], name: str, ks: Sequence[int], window: str
) -> list[str]:
    """A run's pass@k by release window, for its summary: a table for each suite whose
    problems fall in at least two windows (see :func:`run_windows`)."""
    return breakdown_lines(run_windows(records, name, ks, window), [name], ks)


def listed_interval(ci: tuple[float, float] | None) -> list[float] | None:
    """An interval as JSON has it; None where there is none (a facet value of one problem)."""
    return None if ci is None else list(ci)
