"""Report stage: per-sample records, the results file and the terminal summary table.

A record is the JSON-safe dict that describes one sample's fate. Workers attach it to their
test reports; the controller (or the only process) receives it in
``pytest_runtest_logreport``, appends it to ``--codegen-results`` at once (so an interrupted
run keeps what it graded) and scores from the records it received.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any

from .. import outcomes
from ..scoring import Row

ERROR_CHARS = 2000
OUTPUT_CHARS = 4000


def make_record(
    *,
    nodeid: str,
    problem: Any,
    sample_index: int,
    outcome: str,
    model: str,
    duration_s: float = 0.0,
    completion: Any = None,
    code: str = "",
    error: str = "",
    verdict: Any = None,
) -> dict[str, Any]:
    """The record of one sample (see the README for the meaning of each field)."""
    record: dict[str, Any] = {
        "nodeid": nodeid,
        "suite": problem.suite,
        "task_id": problem.id,
        "category": problem.category,
        "sample_index": sample_index,
        "outcome": outcome,
        "passed": outcome == outcomes.PASSED,
        "duration_s": round(duration_s, 4),
        "model": model,
        "mode": verdict.mode if verdict is not None else problem.mode,
        "completion": completion.text if completion is not None else None,
        "code": code,
        "error": short_error(error),
    }
    if completion is not None:
        record.update(generation_fields(completion))
    if verdict is not None:
        record["isolation"] = verdict.isolation
        record["tests"] = verdict.tests
        record["stdout"] = _truncate(verdict.stdout, OUTPUT_CHARS, keep="end")
        record["stderr"] = _truncate(verdict.stderr, OUTPUT_CHARS, keep="end")
    return record


_NODE = re.compile(r"^(?P<file>.*?)::(?P<name>.*)\[s(?P<index>\d+)\]$")


def missing_record(nodeid: str, model: str, reason: str) -> dict[str, Any]:
    """A record for a sample that never reported (its worker died, the run was cut short)."""
    match = _NODE.match(nodeid)
    file, name, index = (
        (match["file"], match["name"], int(match["index"])) if match else (nodeid, nodeid, 0)
    )
    return {
        "nodeid": nodeid,
        "suite": Path(file).name,
        "task_id": name,
        "category": "",
        "sample_index": index,
        "outcome": outcomes.MISSING,
        "passed": False,
        "duration_s": 0.0,
        "model": model,
        "mode": "",
        "completion": None,
        "code": "",
        "error": reason,
    }


def generation_fields(completion: Any) -> dict[str, Any]:
    """What a record keeps of how a completion was generated (tokens, latency, cache)."""
    fields = ("prompt_tokens", "completion_tokens", "latency_s", "cached")
    return {
        f: getattr(completion, f) for f in fields if getattr(completion, f) not in (None, False)
    }


def short_error(text: str | None) -> str:
    """An error message as records keep it."""
    return _truncate(text, ERROR_CHARS)


def _truncate(text: str | None, limit: int, keep: str = "start") -> str:
    text = text or ""
    if len(text) <= limit:
        return text
    return text[:limit] + " [...]" if keep == "start" else "[...] " + text[-limit:]


class ResultsWriter:
    """Appends one JSON line per sample as soon as it is graded; flushed line by line."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._fh: IO[str] | None = path.open("w", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        if self._fh is None:
            return
        self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


# Outcome columns of the table, short enough to keep it narrow.
COLUMNS = (
    (outcomes.PASSED, "pass"),
    (outcomes.FAILED, "fail"),
    (outcomes.ERROR, "err"),
    (outcomes.TIMEOUT, "tmo"),
    (outcomes.CRASHED, "crash"),
    (outcomes.UNEXTRACTABLE, "noext"),
    (outcomes.MISSING, "miss"),
    (outcomes.API_ERROR, "api"),
    (outcomes.QUARANTINED, "quar"),
)


def _single_category_suites(rows: Sequence[Row]) -> set[str]:
    categories: dict[str, list[str]] = {}
    for row in rows:
        if row.category is not None:
            categories.setdefault(row.suite, []).append(row.category)
    return {s for s, cats in categories.items() if cats == [s]}


def format_table(rows: Sequence[Row], ks: Iterable[int]) -> list[str]:
    """The summary table, one string per line; column widths follow the data."""
    ks = list(ks)
    header = (
        ["suite", "category", "problems", "samples"]
        + [c for _, c in COLUMNS]
        + [f"pass@{k}" for k in ks]
    )
    body = []
    single = _single_category_suites(rows)
    for row in rows:
        if row.category is not None and row.suite in single:
            continue  # one category named like its suite: the suite line says it all
        body.append(
            [
                row.suite if row.category is None else "",
                row.category or "(all)",
                str(row.problems),
                str(row.samples),
            ]
            + [str(row.counts.get(o, 0)) for o, _ in COLUMNS]
            + [("n/a" if row.pass_at_k[k] is None else f"{row.pass_at_k[k]:.3f}") for k in ks]
        )
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]

    def fmt(cells: list[str]) -> str:
        left = [c.ljust(w) for c, w in zip(cells[:2], widths[:2], strict=True)]
        right = [c.rjust(w) for c, w in zip(cells[2:], widths[2:], strict=True)]
        return "  ".join(left + right).rstrip()

    return [fmt(header)] + [fmt(r) for r in body]


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def generation_lines(
    stats: dict[str, float], records: Iterable[dict[str, Any]], price: tuple[float, float] | None
) -> list[str]:
    """Summary lines on generation: requests, tokens, latency and (when priced) cost."""
    from ..generation.prompts import cost_usd

    records = list(records)
    lines = [
        f"generation: {int(stats.get('requests', 0))} requests, "
        f"{int(stats.get('samples_generated', 0))} samples generated, "
        f"{int(stats.get('cache_hits', 0))} from cache, {int(stats.get('errors', 0))} API "
        f"errors, tokens {int(stats.get('prompt_tokens', 0))} in / "
        f"{int(stats.get('completion_tokens', 0))} out"
    ]
    fresh = [
        r["latency_s"] for r in records if r.get("latency_s") is not None and not r.get("cached")
    ]
    if fresh:
        lines.append(
            f"latency per sample: median {_quantile(fresh, 0.5):.2f} s, "
            f"p95 {_quantile(fresh, 0.95):.2f} s ({len(fresh)} samples generated "
            "in this run)"
        )
    if price is not None:
        total = sum(r.get("cost_usd", 0.0) for r in records)
        spent = cost_usd(
            price, int(stats.get("prompt_tokens", 0)), int(stats.get("completion_tokens", 0))
        )
        lines.append(
            f"cost: ${total:.4f} for these {len(records)} samples, ${spent:.4f} "
            f"spent in this run (at ${price[0]:g} / ${price[1]:g} per million tokens "
            "in / out)"
        )
    return lines


def repair_lines(curve: dict[str, list[float]]) -> list[str]:
    """One line per suite: pass@1 after each error-debugging round."""
    return [
        f"repair rounds, pass@1 of {suite}: " + " -> ".join(f"{value:.3f}" for value in values)
        for suite, values in curve.items()
    ]
