"""The terminal summary: the pass@k table (column widths from the data), and the lines on
generation (requests, tokens, latency, cost) and error-debugging rounds."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .. import outcomes
from ..attempts import summary_line, tally
from ..scoring.passk import Row
from .records import CUT_AT_TOKEN_LIMIT

# Outcome columns of the table, short enough to keep it narrow.
COLUMNS = (
    (outcomes.PASSED, "pass"),
    (outcomes.FAILED, "fail"),
    (outcomes.ERROR, "err"),
    (outcomes.TIMEOUT, "tmo"),
    (outcomes.CRASHED, "crash"),
    (outcomes.TAMPERED, "tamp"),
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
    return {s for s, cats in categories.items() if cats in ([s], [""])}


def format_table(rows: Sequence[Row], ks: Iterable[int]) -> list[str]:
    """The summary table, one string per line; column widths follow the data."""
    ks = list(ks)
    header = (
        ["suite", "category", "problems", "samples"]
        + [c for _, c in COLUMNS]
        + [name for k in ks for name in (f"pass@{k}", "ci95")]
    )
    body = []
    single = _single_category_suites(rows)
    for row in rows:
        if row.category is not None and row.suite in single:
            continue  # one category named like its suite, or none: the suite line says it all
        body.append(
            [
                row.suite if row.category is None else "",
                "(all)" if row.category is None else row.category or "(no category)",
                str(row.problems),
                str(row.samples),
            ]
            + [str(row.counts.get(o, 0)) for o, _ in COLUMNS]
            + [cell for k in ks for cell in _score_cells(row.pass_at_k[k], row.ci.get(k))]
        )
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]

    def fmt(cells: list[str]) -> str:
        left = [c.ljust(w) for c, w in zip(cells[:2], widths[:2], strict=True)]
        right = [c.rjust(w) for c, w in zip(cells[2:], widths[2:], strict=True)]
        return "  ".join(left + right).rstrip()

    return [fmt(header)] + [fmt(r) for r in body] + interval_notes(rows)


def _score_cells(value: float | None, ci: tuple[float, float] | None) -> tuple[str, str]:
    """A pass@k and its interval, each one word (the table is read by splitting lines)."""
    if value is None:
        return "n/a", "n/a"
    return f"{value:.3f}", "n/a" if ci is None else f"[{ci[0]:.3f},{ci[1]:.3f}]"


def interval_notes(rows: Sequence[Row]) -> list[str]:
    """The footnote saying what the intervals are, and which suites' are clustered."""
    clustered = [
        f"{row.suite} by its {row.clusters} categories"
        for row in rows
        if row.category is None and row.clusters
    ]
    note = "ci95: the 95% interval of the pass@k before it (standard error over problems"
    if clustered:
        note += "; clustered: " + ", ".join(clustered)
    return [note + ")"]


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def generation_lines(
    stats: dict[str, Any], records: Iterable[dict[str, Any]], price: tuple[float, float] | None
) -> list[str]:
    """Summary lines on generation: requests, tokens, latency and (when priced) cost."""
    from ..generation.cost import cost_usd

    records = list(records)
    lines = [
        f"generation: {int(stats.get('requests', 0))} requests, "
        f"{int(stats.get('samples_generated', 0))} samples generated, "
        f"{int(stats.get('cache_hits', 0))} from cache, {int(stats.get('errors', 0))} API "
        f"errors, tokens {int(stats.get('prompt_tokens', 0))} in / "
        f"{int(stats.get('completion_tokens', 0))} out"
    ]
    # The samples the model answered in this run: an API error's wait is no sample's latency.
    fresh = [
        r["latency_s"]
        for r in records
        if r.get("latency_s") is not None
        and not r.get("cached")
        and r.get("outcome") not in (outcomes.API_ERROR, outcomes.MISSING)
    ]
    if fresh:
        lines.append(
            f"latency per sample: median {_quantile(fresh, 0.5):.2f} s, "
            f"p95 {_quantile(fresh, 0.95):.2f} s ({len(fresh)} samples generated "
            "in this run)"
        )
    cut = sum(r.get("finish_reason") in CUT_AT_TOKEN_LIMIT for r in records)
    if cut:
        lines.append(
            f"truncated: {cut} of {len(records)} answers stopped at the token limit "
            "(finish_reason length, max_tokens or MAX_TOKENS; see --codegen-max-tokens)"
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
    # What the model adapted (one sample per request) or learned (a refused parameter).
    lines.extend(f"generation: {note}" for note in stats.get("notes") or ())
    return lines


def repair_lines(curve: dict[str, list[float]]) -> list[str]:
    """One line per suite: pass@1 after each error-debugging round."""
    return [
        f"repair rounds, pass@1 of {suite}: " + " -> ".join(f"{value:.3f}" for value in values)
        for suite, values in curve.items()
    ]


def attempt_lines(records: Iterable[dict[str, Any]]) -> list[str]:
    """``attempts: N samples flagged (...)`` when any sample was flagged; with several
    models, then the share of each model's samples flagged."""
    records = list(records)
    line = summary_line(records)
    if line is None:
        return []
    by_model: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_model.setdefault(str(record.get("model", "")), []).append(record)
    lines = [line]
    if len(by_model) > 1:
        for model, own in sorted(by_model.items()):
            flagged, _ = tally(own)
            lines.append(
                f"attempts of {model}: {flagged} of {len(own)} samples flagged "
                f"({flagged / len(own):.1%})"
            )
    return lines


def sampling_lines(
    records: Iterable[dict[str, Any]], defaulted: dict[str, tuple[Any, tuple[str, ...]]]
) -> list[str]:
    """One line per suite sampled by its kind's defaults (``defaulted``: kind name -> its
    ``SamplingDefaults`` and what of them the user left to them): what its records state was
    used, where it is the kind's."""
    lines: dict[str, str] = {}
    for record in records:
        suite, kind = str(record.get("suite")), str(record.get("mode") or "")
        if suite in lines or not defaulted.get(kind, (None, ()))[1]:
            continue
        defaults, names = defaulted[kind]
        params = (record.get("run") or {}).get("params") or {}
        used = {
            name: params.get(name) for name in names if params.get(name) == getattr(defaults, name)
        }
        if not used:  # the model's own parameters won
            continue
        said = [
            f"{used['samples']} samples a problem" if name == "samples" else f"temperature {value}"
            for name, value in used.items()
        ]
        flags = " and ".join(f"--codegen-{name}" for name in used)
        lines[suite] = (
            f"sampling of {suite}: {' and '.join(said)} ({defaults.source} "
            + ("defaults; " if len(used) > 1 else "default; ")
            + flags
            + (" set others)" if len(used) > 1 else " sets another)")
        )
    return [lines[suite] for suite in sorted(lines)]


def aligned(rows: list[list[str]]) -> list[str]:
    """A table's rows as lines, each column as wide as its widest cell."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
