"""The report's data: per-sample records grouped into problems and scored, as one JSON object.

With problems that carry a ``contest_date`` (LiveCodeBench), ``windows`` holds the run's
pass@k by release window (``meta["date_window"]``, as ``--codegen-date-window``), the parts
:func:`pytest_codegen.reporting.breakdowns.run_windows` gives the summary.

:func:`report_data` is everything the page shows. Problems count their samples by the one
rule of :func:`pytest_codegen.scoring.latest_samples`, as the summary and the gates do.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ... import outcomes
from ...attempts import tally
from ...scoring.intervals import clusters_across_suites, mean_interval
from ...scoring.passk import latest_samples, pass_at_k
from ..breakdowns import WINDOWS, listed_interval, run_windows

DEFAULT_KS: tuple[int, ...] = (1, 5, 10)
RUN_NAME = "run"  # the one run of a report, in its release-window parts

# Per-sample output beyond this many characters is cut, so one chatty sample cannot make the
# report unreadably large; the cut is marked in the text.
MAX_OUTPUT_CHARS = 20_000
MAX_CODE_CHARS = 200_000


def shown_text(value: Any, limit: int | None = None) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    if limit is not None and len(text) > limit:
        cut = len(text) - limit
        text = f"{text[:limit]}\n… [{cut} more characters not shown]"
    return text


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _clean(value: Any) -> Any:
    """A JSON-safe copy: non-finite floats become ``None``, unknown objects strings."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, str | int | bool):
        return value
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_clean(v) for v in value]
    return str(value)


def _sample(record: Mapping[str, Any]) -> dict[str, Any]:
    tests = []
    for test in record.get("tests") or ():
        if isinstance(test, Mapping):
            tests.append(
                {
                    "name": shown_text(test.get("name")),
                    "status": shown_text(test.get("status")),
                    "message": shown_text(test.get("message"), MAX_OUTPUT_CHARS),
                }
            )
    index = record.get("sample_index")
    code = shown_text(record.get("code"), MAX_CODE_CHARS)
    completion: str | None = shown_text(record.get("completion"), MAX_CODE_CHARS)
    around: list[str] | None = None
    if code and completion and code in completion:
        # the reply is usually the code plus some prose and a fence: keep only what is around
        start = completion.index(code)
        around = [completion[:start], completion[start + len(code) :]]
        completion = None
    return {
        "sample_index": index if isinstance(index, int) and not isinstance(index, bool) else None,
        "nodeid": shown_text(record.get("nodeid")),
        "outcome": shown_text(record.get("outcome")) or outcomes.MISSING,
        "duration_s": _number(record.get("duration_s")),
        "completion": completion,
        "completion_around": around,
        "code": code,
        "error": shown_text(record.get("error"), MAX_OUTPUT_CHARS),
        "model": shown_text(record.get("model")),
        "mode": shown_text(record.get("mode")),
        "tests": tests,
        "stdout": shown_text(record.get("stdout"), MAX_OUTPUT_CHARS),
        "stderr": shown_text(record.get("stderr"), MAX_OUTPUT_CHARS),
        "attempts": [
            {"category": shown_text(a.get("category")), "evidence": shown_text(a.get("evidence"))}
            for a in record.get("attempts") or ()
            if isinstance(a, Mapping)
        ],
    }


def _problems(records: Iterable[Mapping[str, Any]], ks: Sequence[int]) -> list[dict[str, Any]]:
    """Group sample records by (suite, task_id), in first-seen order, with per-problem scores."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for record in latest_samples(records):
        suite = shown_text(record.get("suite"))
        task_id = shown_text(record.get("task_id")) or shown_text(record.get("nodeid"))
        problem = groups.get((suite, task_id))
        if problem is None:
            problem = groups[(suite, task_id)] = {
                "suite": suite,
                "task_id": task_id,
                "category": shown_text(record.get("category")),
                "prompt": "",
                "samples": [],
            }
        if not problem["prompt"] and record.get("prompt"):
            problem["prompt"] = shown_text(record.get("prompt"), MAX_CODE_CHARS)
        problem["samples"].append(_sample(record))

    task_ids: dict[str, int] = {}
    for _suite, task_id in groups:
        task_ids[task_id] = task_ids.get(task_id, 0) + 1

    result = []
    for (suite, task_id), problem in groups.items():
        samples = problem["samples"]
        samples.sort(key=lambda s: (s["sample_index"] is None, s["sample_index"] or 0))
        counts: dict[str, int] = {}
        for sample in samples:
            counts[sample["outcome"]] = counts.get(sample["outcome"], 0) + 1
        n = sum(v for o, v in counts.items() if o in outcomes.GRADED)
        c = counts.get(outcomes.PASSED, 0)
        problem["key"] = task_id if task_ids[task_id] == 1 else f"{suite}::{task_id}"
        problem["n"] = n
        problem["c"] = c
        problem["counts"] = counts
        problem["duration_s"] = sum(s["duration_s"] or 0.0 for s in samples)
        problem["pass_at_k"] = {str(k): pass_at_k(n, c, k) for k in ks}
        result.append(problem)
    return result


def _overall(problems: Sequence[Mapping[str, Any]], ks: Sequence[int]) -> dict[str, float | None]:
    """pass@k over every problem of every suite with a graded sample (one with none, all
    missing, has nothing to score, as in a suite's row): the mean, ``None`` if any problem
    has 0 < n < k."""
    result: dict[str, float | None] = {}
    for k in ks:
        values = [p["pass_at_k"][str(k)] for p in problems if p["n"] > 0]
        ok = bool(values) and all(v is not None for v in values)
        result[str(k)] = sum(values) / len(values) if ok else None  # type: ignore[arg-type]
    return result


def _overall_ci(problems: Sequence[Mapping[str, Any]], ks: Sequence[int]) -> dict[str, Any]:
    """The 95% interval of each overall pass@k (clustered by category as a suite's row is,
    in the suites that have several)."""
    ordered = sorted((p for p in problems if p["n"] > 0), key=lambda p: (p["suite"], p["task_id"]))
    clusters = clusters_across_suites([(p["suite"], p["category"], p["task_id"]) for p in ordered])
    result: dict[str, Any] = {}
    for k in ks:
        values = [p["pass_at_k"][str(k)] for p in ordered]
        ok = bool(values) and all(v is not None for v in values)
        result[str(k)] = listed_interval(mean_interval(values, clusters)) if ok else None
    return result


def _ks(meta: Mapping[str, Any], summary: Sequence[Mapping[str, Any]]) -> list[int]:
    ks = meta.get("k")
    if isinstance(ks, int) and not isinstance(ks, bool):
        ks = [ks]
    if isinstance(ks, Sequence) and not isinstance(ks, str):
        found = sorted({int(k) for k in ks if str(k).isdigit() and int(k) > 0})
        if found:
            return found
    from_rows = {
        int(k) for row in summary for k in (row.get("pass_at_k") or {}) if str(k).isdigit()
    }
    return sorted(from_rows) or list(DEFAULT_KS)


def report_data(
    records: Sequence[Mapping[str, Any]],
    summary: Sequence[Mapping[str, Any]],
    meta: Mapping[str, Any],
) -> dict[str, Any]:
    """Everything the page shows, as one JSON-serialisable object."""
    ks = _ks(meta, summary)
    problems = _problems(records, ks)
    counts = {o: 0 for o in outcomes.ALL}
    for problem in problems:
        for outcome, count in problem["counts"].items():
            counts[outcome] = counts.get(outcome, 0) + count
    graded = sum(counts.get(o, 0) for o in outcomes.GRADED)
    window = meta.get("date_window", "quarter")
    window = window if window in WINDOWS else "off"
    return {
        "format": 1,
        "meta": _clean(dict(meta)),
        "ks": ks,
        "outcomes": list(outcomes.ALL),
        "graded_outcomes": list(outcomes.GRADED),
        "summary": _clean([dict(row) for row in summary]),
        "totals": {
            "problems": len(problems),
            "samples": sum(counts.values()),
            "graded": graded,
            "passed": counts.get(outcomes.PASSED, 0),
            "counts": counts,
            "pass_at_k": _overall(problems, ks),
            "ci": _overall_ci(problems, ks),
            "attempts": attempt_counts(records),
        },
        "problems": problems,
        # pass@k by release window of contest_date, as the summary shows it
        "date_window": window,
        "windows": [part.to_json(ks) for part in run_windows(list(records), RUN_NAME, ks, window)],
    }


def attempt_counts(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """How many samples were flagged with attempts, in all and per category."""
    flagged, per_category = tally(latest_samples(records))
    return {"flagged": flagged, "categories": dict(sorted(per_category.items()))}
