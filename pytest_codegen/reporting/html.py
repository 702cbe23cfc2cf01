"""A self-contained static HTML report of a run.

:func:`write_html` writes one HTML file with everything inline (CSS, JavaScript and the data),
so it can be mailed, attached to a CI run or opened from disk without network access. The data
is embedded as JSON in a ``<script type="application/json">`` element with ``<``, ``>`` and
``&`` escaped, so generated code containing ``</script>`` cannot end the element early.

The page draws everything from that data: a header with totals, the pass@k table per suite and
category, an SVG chart of pass@k over k per suite, a stacked bar of outcomes per category, and a
paginated problem list with sorting and filtering. A problem's drill-down (its prompt, and each
sample's code, outcome, test messages and output) is only built when it is opened, so reports
with tens of thousands of samples stay responsive.

The view state lives in the URL fragment, so a link can point at a view or at one problem:
``report.html#problem=HumanEval/3&sample=2``, ``#show=failing&sort=rate-asc&q=sort``.
Keys: ``problem``, ``sample``, ``q``, ``suite``, ``category``, ``show`` (``all``, ``failing``,
``never``, ``perfect`` or ``o:<outcome>``), ``sort`` (``id``, ``rate-asc``, ``rate-desc``,
``time-desc``), ``page`` (1-based) and ``size``.

It can also be built from a results file after the fact::

    python -m pytest_codegen.reporting.html results.jsonl -o report.html
"""

from __future__ import annotations

import argparse
import datetime as _dt
import html as _html
import json
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import outcomes
from ..jsonl import read_objects
from ..scoring import pass_at_k, summarize

DEFAULT_KS: tuple[int, ...] = (1, 5, 10)

# Per-sample output beyond this many characters is cut, so one chatty sample cannot make the
# report unreadably large; the cut is marked in the text.
MAX_OUTPUT_CHARS = 20_000
MAX_CODE_CHARS = 200_000

_JSON_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------


def load_results(path: str | Path) -> list[dict[str, Any]]:
    """Read a results JSONL file (one record per line; ``.gz`` is decompressed).

    Blank lines are skipped; a line that is not a JSON object raises :class:`ValueError`
    naming the file and line.
    """
    return [record for _, record in read_objects(Path(path))]


def _text(value: Any, limit: int | None = None) -> str:
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
                    "name": _text(test.get("name")),
                    "status": _text(test.get("status")),
                    "message": _text(test.get("message"), MAX_OUTPUT_CHARS),
                }
            )
    index = record.get("sample_index")
    code = _text(record.get("code"), MAX_CODE_CHARS)
    completion: str | None = _text(record.get("completion"), MAX_CODE_CHARS)
    around: list[str] | None = None
    if code and completion and code in completion:
        # the reply is usually the code plus some prose and a fence: keep only what is around
        start = completion.index(code)
        around = [completion[:start], completion[start + len(code) :]]
        completion = None
    return {
        "sample_index": index if isinstance(index, int) and not isinstance(index, bool) else None,
        "nodeid": _text(record.get("nodeid")),
        "outcome": _text(record.get("outcome")) or outcomes.MISSING,
        "duration_s": _number(record.get("duration_s")),
        "completion": completion,
        "completion_around": around,
        "code": code,
        "error": _text(record.get("error"), MAX_OUTPUT_CHARS),
        "model": _text(record.get("model")),
        "mode": _text(record.get("mode")),
        "tests": tests,
        "stdout": _text(record.get("stdout"), MAX_OUTPUT_CHARS),
        "stderr": _text(record.get("stderr"), MAX_OUTPUT_CHARS),
    }


def _problems(records: Iterable[Mapping[str, Any]], ks: Sequence[int]) -> list[dict[str, Any]]:
    """Group sample records by (suite, task_id), in first-seen order, with per-problem scores."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for record in records:
        suite = _text(record.get("suite"))
        task_id = _text(record.get("task_id")) or _text(record.get("nodeid"))
        problem = groups.get((suite, task_id))
        if problem is None:
            problem = groups[(suite, task_id)] = {
                "suite": suite,
                "task_id": task_id,
                "category": _text(record.get("category")),
                "prompt": "",
                "samples": [],
            }
        if not problem["prompt"] and record.get("prompt"):
            problem["prompt"] = _text(record.get("prompt"), MAX_CODE_CHARS)
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
    """pass@k over every problem of every suite: the mean, ``None`` if any problem has n < k."""
    result: dict[str, float | None] = {}
    for k in ks:
        values = [p["pass_at_k"][str(k)] for p in problems]
        ok = bool(values) and all(v is not None for v in values)
        result[str(k)] = sum(values) / len(values) if ok else None  # type: ignore[arg-type]
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
        },
        "problems": problems,
    }


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element.

    ``<``, ``>`` and ``&`` are written as ``\\u`` escapes (only ever inside JSON strings), so
    no ``</script>``, ``<!--`` or ``<script`` sequence can appear; the text is plain ASCII.
    """
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.translate(_JSON_ESCAPES)


def render_html(
    records: Sequence[Mapping[str, Any]],
    summary: Sequence[Mapping[str, Any]],
    meta: Mapping[str, Any],
) -> str:
    """The report page as a string; see :func:`write_html`."""
    data = report_data(records, summary, meta)
    model = _text(meta.get("model")) or "unknown model"
    title = f"pytest-codegen report · {model}"
    return (
        _TEMPLATE.replace("__TITLE__", _html.escape(title))
        .replace("__CSS__", _CSS)
        .replace("__JS__", _JS)
        .replace("__DATA__", embed_json(data))
    )


def write_html(
    path: Path,
    records: list[dict[str, Any]],
    summary: list[dict[str, Any]],
    meta: dict[str, Any],
) -> None:
    """Write the self-contained report for ``records`` to ``path``.

    ``records`` are per-sample result records, ``summary`` the rows of
    :func:`pytest_codegen.scoring.summarize` as JSON (``Row.to_json``), ``meta`` the run's
    ``model``, ``started``, ``duration_s``, ``k``, ``pytest_version`` and ``plugin_version``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(records, summary, meta), encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def _plugin_version() -> str:
    try:
        from importlib.metadata import version

        return version("pytest-codegen")
    except Exception:
        return ""


def _pytest_version() -> str:
    try:
        import pytest

        return str(pytest.__version__)
    except Exception:
        return ""


def _parse_ks(text: str) -> list[int]:
    try:
        ks = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got {text!r}"
        ) from None
    if not ks or ks[0] < 1:
        raise argparse.ArgumentTypeError(f"k values must be positive integers, got {text!r}")
    return ks


def build_from_results(
    results: str | Path,
    output: str | Path,
    ks: Sequence[int] = DEFAULT_KS,
    model: str | None = None,
) -> dict[str, Any]:
    """Read a results JSONL, score it and write the report; returns the meta used."""
    results = Path(results)
    records = load_results(results)
    summary = [row.to_json() for row in summarize(records, ks)]
    models = sorted({_text(r.get("model")) for r in records if r.get("model")})
    started = _dt.datetime.fromtimestamp(results.stat().st_mtime, tz=_dt.timezone.utc)
    meta: dict[str, Any] = {
        "model": model or ", ".join(models) or "unknown model",
        "started": None,
        "duration_s": None,
        "k": list(ks),
        "pytest_version": _pytest_version(),
        "plugin_version": _plugin_version(),
        "source": str(results),
        "source_modified": started.isoformat(timespec="seconds"),
    }
    write_html(Path(output), records, summary, meta)
    return meta


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_codegen.reporting.html",
        description="Build a self-contained HTML report from a pytest-codegen results JSONL file.",
    )
    parser.add_argument("results", type=Path, help="results file, one JSON record per line")
    parser.add_argument(
        "-o", "--output", type=Path, help="HTML file to write (default: RESULTS with .html)"
    )
    parser.add_argument(
        "-k", "--k", type=_parse_ks, default=list(DEFAULT_KS), help="pass@k values (1,5,10)"
    )
    parser.add_argument("--model", help="model name for the header (default: from the records)")
    args = parser.parse_args(argv)
    output = args.output or args.results.with_suffix(".html")
    try:
        build_from_results(args.results, output, args.k, args.model)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyError as exc:
        print(f"error: {args.results}: a record has no {exc} field", file=sys.stderr)
        return 1
    print(f"wrote {output}")
    return 0


# --------------------------------------------------------------------------------------------
# Page
# --------------------------------------------------------------------------------------------

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="pytest-codegen">
<title>__TITLE__</title>
<style>
__CSS__
</style>
</head>
<body>
<header class="top">
  <div class="wrap top-inner">
    <div>
      <div class="brand">pytest-codegen</div>
      <h1 id="model">Report</h1>
    </div>
    <div class="meta" id="meta-line"></div>
  </div>
</header>
<main class="wrap">
  <div id="error-banner" class="banner" hidden></div>
  <noscript><div class="banner">This report is drawn by JavaScript; enable it to see
  the results.</div></noscript>
  <section class="cards" id="cards" aria-label="Totals"></section>
  <section class="panel" aria-labelledby="h-scores">
    <div class="panel-head"><h2 id="h-scores">pass@k by suite and category</h2>
      <span class="hint">Mean over problems; n/a when some problem has fewer than k
      graded samples. Click a row to list its problems.</span></div>
    <div class="table-scroll"><table class="summary" id="summary-table"></table></div>
  </section>
  <section class="charts">
    <div class="panel" aria-labelledby="h-passk">
      <div class="panel-head"><h2 id="h-passk">pass@k over k</h2></div>
      <div id="chart-passk" class="chart"></div>
    </div>
    <div class="panel" aria-labelledby="h-outcomes">
      <div class="panel-head"><h2 id="h-outcomes">Outcomes by category</h2></div>
      <div id="chart-outcomes" class="chart"></div>
    </div>
  </section>
  <section class="panel" id="problems-panel" aria-labelledby="h-problems">
    <div class="panel-head"><h2 id="h-problems">Problems</h2>
      <span class="hint" id="list-status"></span></div>
    <div class="toolbar">
      <input type="search" id="f-q" placeholder="Search ids, prompts, errors…"
        aria-label="Search">
      <select id="f-suite" aria-label="Suite"></select>
      <select id="f-category" aria-label="Category"></select>
      <select id="f-show" aria-label="Show"></select>
      <select id="f-sort" aria-label="Sort">
        <option value="id">Sort: id</option>
        <option value="rate-asc">Sort: pass rate, lowest first</option>
        <option value="rate-desc">Sort: pass rate, highest first</option>
        <option value="time-desc">Sort: run time, longest first</option>
      </select>
      <button type="button" id="f-reset" class="btn">Reset</button>
    </div>
    <div id="problem-list" class="plist"></div>
    <div id="pager" class="pager"></div>
  </section>
  <footer class="foot" id="foot"></footer>
</main>
<script type="application/json" id="codegen-data">__DATA__</script>
<script>
__JS__
</script>
</body>
</html>
"""

_CSS = """
:root {
  --bg: #f4f5f7; --panel: #fff; --border: #e1e4e8; --text: #1f2328; --muted: #656d76;
  --accent: #2f6fde; --head: #1b2330; --code-bg: #f7f8fa;
  --passed: #2da44e; --failed: #cf222e; --error: #e16f24; --timeout: #d4a72c;
  --crashed: #8250df; --unextractable: #8c959f; --missing: #c9ced4; --api_error: #3d4a5c;
  --quarantined: #a475f9;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--text); font-size: 14px; line-height: 1.45;
  font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue",
    "Noto Sans", "DejaVu Sans", Arial, sans-serif;
}
.wrap { max-width: 1320px; margin: 0 auto; padding: 0 24px; }
.top { background: var(--head); color: #fff; padding: 18px 0 16px; }
.top-inner { display: flex; justify-content: space-between; align-items: flex-end; gap: 24px; }
.brand { font-size: 12px; letter-spacing: .08em; text-transform: uppercase; color: #9fb0c7; }
.top h1 { margin: 2px 0 0; font-size: 22px; font-weight: 600; word-break: break-all; }
.top .meta { color: #c3cfdd; font-size: 12.5px; text-align: right; }
.top .meta span { white-space: nowrap; margin-left: 14px; }
.top .meta b { color: #fff; font-weight: 600; }
main.wrap { padding-top: 20px; padding-bottom: 32px; }
.banner {
  background: #fff1f0; border: 1px solid #f5b5b0; color: #8a1c13; padding: 10px 14px;
  border-radius: 8px; margin-bottom: 16px; white-space: pre-wrap; font-family: var(--mono);
}
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card {
  background: var(--panel); border: 1px solid var(--border); border-radius: 10px;
  padding: 12px 14px; flex: 1 1 150px; min-width: 0;
}
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase;
  letter-spacing: .04em; }
.card .value { font-size: 24px; font-weight: 600; margin-top: 2px;
  font-variant-numeric: tabular-nums; }
.card .sub { color: var(--muted); font-size: 12px; }
.card.wide { flex-basis: 100%; }
.obar { display: flex; height: 12px; border-radius: 6px; overflow: hidden; background: #eaeef2;
  margin: 6px 0 8px; }
.obar i { display: block; height: 100%; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 16px; font-size: 12.5px; color: var(--muted); }
.legend span { display: inline-flex; align-items: center; gap: 6px; white-space: nowrap; }
.legend b { color: var(--text); font-weight: 600; font-variant-numeric: tabular-nums; }
.sw { width: 10px; height: 10px; border-radius: 2px; display: inline-block; flex: none; }
.panel {
  background: var(--panel); border: 1px solid var(--border); border-radius: 10px;
  padding: 14px 16px; margin-top: 16px; min-width: 0;
}
.panel-head { display: flex; align-items: baseline; gap: 14px; flex-wrap: wrap;
  margin-bottom: 10px; }
.panel h2 { font-size: 15px; margin: 0; font-weight: 600; }
.hint { color: var(--muted); font-size: 12.5px; }
.charts { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.charts .panel { margin-top: 16px; }
@media (max-width: 900px) { .charts { grid-template-columns: 1fr; } }
.chart svg { width: 100%; height: auto; display: block; }
.chart .legend { margin-top: 6px; }
.chart text { font-size: 11px; fill: #57606a; }
.chart .axis-title { font-size: 11px; fill: #57606a; }
.table-scroll { overflow-x: auto; }
table.summary { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
table.summary th, table.summary td { padding: 6px 10px; text-align: right;
  border-bottom: 1px solid #eef0f2; white-space: nowrap; }
table.summary th { font-size: 12px; color: var(--muted); font-weight: 600;
  text-transform: uppercase; letter-spacing: .03em; border-bottom: 1px solid var(--border); }
table.summary th:first-child, table.summary td:first-child { text-align: left; }
table.summary td.outc { width: 28%; min-width: 180px; }
table.summary tr.suite-row td { font-weight: 600; background: #fafbfc; }
table.summary tr.cat-row td:first-child { padding-left: 28px; color: #3b434c; }
table.summary tbody tr { cursor: pointer; }
table.summary tbody tr:hover td { background: #f0f5ff; }
.pk { display: inline-flex; align-items: center; gap: 8px; justify-content: flex-end; }
.pk .mini { width: 54px; height: 6px; background: #eaeef2; border-radius: 3px;
  overflow: hidden; }
.pk .mini i { display: block; height: 100%; background: var(--accent); }
.na { color: #8c959f; }
.obar.small { height: 8px; margin: 0; min-width: 140px; }
.toolbar { display: flex; flex-wrap: wrap; gap: 8px; margin-bottom: 10px; }
.toolbar input, .toolbar select, .btn {
  font: inherit; font-size: 13px; padding: 6px 10px; border: 1px solid #d0d7de;
  border-radius: 6px; background: #fff; color: var(--text);
}
.toolbar input { flex: 1 1 260px; min-width: 200px; }
.btn { cursor: pointer; }
.btn:hover:not([disabled]) { background: #f3f4f6; }
.btn[disabled] { color: #a0a7af; cursor: default; }
.plist { border: 1px solid var(--border); border-radius: 8px; overflow: hidden; }
.prob { border-top: 1px solid #eef0f2; scroll-margin-top: 12px; }
.prob:first-child { border-top: 0; }
.prob-head {
  display: grid; grid-template-columns: 14px minmax(160px, 1.3fr) minmax(120px, 1fr)
    minmax(160px, 1.4fr) 64px 110px;
  gap: 12px; align-items: center; padding: 8px 12px; cursor: pointer; user-select: none;
}
.prob-head:hover { background: #f6f8fa; }
.prob-head:focus-visible { outline: 2px solid var(--accent); outline-offset: -2px; }
.prob.open > .prob-head { background: #eef4ff; }
.chev { width: 0; height: 0; border: 5px solid transparent; border-left: 6px solid #8c959f;
  transition: transform .1s; margin-left: 3px; }
.prob.open .chev { transform: rotate(90deg) translateX(2px); }
.pid { font-family: var(--mono); font-size: 13px; font-weight: 600; overflow: hidden;
  text-overflow: ellipsis; white-space: nowrap; }
.tags { display: flex; gap: 6px; overflow: hidden; }
.tag { font-size: 11.5px; padding: 1px 8px; border-radius: 10px; background: #eef1f4;
  color: #424a53; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.tag.cat { background: #e7f0ff; color: #1e4fa3; }
.strip { display: flex; flex-wrap: wrap; gap: 2px; align-items: center; }
.strip i { width: 9px; height: 14px; border-radius: 2px; display: block; }
.strip .more { font-size: 11px; color: var(--muted); margin-left: 4px; }
.frac { font-family: var(--mono); font-size: 12.5px; text-align: right; color: #424a53; }
.rate { display: flex; align-items: center; gap: 8px; }
.rate .bar { flex: 1; height: 6px; border-radius: 3px; background: #eaeef2; overflow: hidden; }
.rate .bar i { display: block; height: 100%; }
.rate span { font-size: 12px; width: 38px; text-align: right; font-variant-numeric: tabular-nums; }
.empty { padding: 28px; text-align: center; color: var(--muted); }
.pager { display: flex; align-items: center; gap: 8px; margin-top: 10px; flex-wrap: wrap; }
.pager .info { color: var(--muted); font-size: 12.5px; margin-right: auto; }
.pager select { font: inherit; font-size: 12.5px; padding: 4px 6px; border-radius: 6px;
  border: 1px solid #d0d7de; }
.drill { padding: 12px 16px 16px 38px; background: #fbfcfd; border-top: 1px solid #eef0f2; }
.drill h4 { margin: 12px 0 6px; font-size: 12px; text-transform: uppercase;
  letter-spacing: .04em; color: var(--muted); }
.drill h4:first-child { margin-top: 0; }
.facts { display: flex; flex-wrap: wrap; gap: 6px 18px; font-size: 12.5px; color: var(--muted); }
.facts b { color: var(--text); font-weight: 600; }
.tabs { display: flex; flex-wrap: wrap; gap: 4px; }
.tab {
  font: inherit; font-size: 12px; font-family: var(--mono); padding: 3px 8px 3px 6px;
  border: 1px solid #d0d7de; border-radius: 6px; background: #fff; cursor: pointer;
  display: inline-flex; align-items: center; gap: 5px; color: var(--text);
}
.tab .sw { width: 8px; height: 8px; border-radius: 50%; }
.tab[aria-selected="true"] { border-color: var(--accent); box-shadow: 0 0 0 1px var(--accent);
  background: #eef4ff; }
.sample { margin-top: 10px; border: 1px solid var(--border); border-radius: 8px;
  background: #fff; padding: 10px 12px; }
.sample-head { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 14px;
  font-size: 12.5px; color: var(--muted); }
.sample-head .nodeid { font-family: var(--mono); font-size: 12px; color: #424a53;
  word-break: break-all; }
.badge { display: inline-block; font-size: 11.5px; font-weight: 600; padding: 1px 8px;
  border-radius: 10px; color: #fff; white-space: nowrap; letter-spacing: .02em; }
.badge.b-missing { color: #24292f; }
.badge.b-timeout { color: #24292f; }
.errmsg { margin-top: 8px; padding: 8px 10px; background: #fff5f5; border: 1px solid #f6d1d1;
  border-radius: 6px; color: #82071e; font-family: var(--mono); font-size: 12.5px;
  white-space: pre-wrap; word-break: break-word; }
table.tests { border-collapse: collapse; width: 100%; font-size: 12.5px; margin-top: 4px; }
table.tests td { padding: 4px 8px; border-top: 1px solid #eef0f2; vertical-align: top; }
table.tests td.tname { font-family: var(--mono); white-space: nowrap; }
table.tests td.tmsg { font-family: var(--mono); white-space: pre-wrap; word-break: break-word;
  color: #57606a; width: 100%; }
.codebox { display: flex; border: 1px solid var(--border); border-radius: 6px;
  background: var(--code-bg); max-height: 520px; overflow: auto; }
.codebox pre { margin: 0; padding: 8px 10px; font-family: var(--mono); font-size: 12.5px;
  line-height: 1.5; tab-size: 4; }
.codebox .gutter { color: #9aa3ad; text-align: right; user-select: none; padding-right: 8px;
  border-right: 1px solid var(--border); background: #f0f2f5; position: sticky; left: 0; }
.codebox .code { flex: 1; white-space: pre; }
.codebox.soft .code { white-space: pre-wrap; word-break: break-word; }
pre.out { margin: 0; padding: 8px 10px; font-family: var(--mono); font-size: 12px;
  background: #1f2430; color: #e6e9ef; border-radius: 6px; max-height: 320px; overflow: auto;
  white-space: pre-wrap; word-break: break-word; }
details.more { margin-top: 8px; }
details.more > summary { cursor: pointer; color: var(--accent); font-size: 12.5px; }
details.more > summary + * { margin-top: 6px; }
.muted { color: var(--muted); }
.tk-kw { color: #cf222e; }
.tk-bi { color: #8250df; }
.tk-str { color: #0a3069; }
.tk-com { color: #6e7781; font-style: italic; }
.tk-num { color: #0550ae; }
.tk-fn { color: #6639ba; font-weight: 600; }
.tk-dec { color: #953800; }
.tk-tag { color: #116329; }
.foot { color: var(--muted); font-size: 12px; margin-top: 18px; text-align: center; }
"""

_JS = r"""
(function () {
  'use strict';
  var PAGE_SIZES = [25, 50, 100, 200];
  var STRIP_MAX = 24;
  var LABELS = {
    passed: 'passed', failed: 'failed', error: 'error', timeout: 'timeout',
    crashed: 'crashed', unextractable: 'unextractable', missing: 'missing',
    api_error: 'API error', quarantined: 'quarantined'
  };
  var COLORS = {
    passed: '#2da44e', failed: '#cf222e', error: '#e16f24', timeout: '#d4a72c',
    crashed: '#8250df', unextractable: '#8c959f', missing: '#c9ced4', api_error: '#3d4a5c',
    quarantined: '#a475f9'
  };
  var SERIES = ['#2f6fde', '#e16f24', '#2da44e', '#8250df', '#cf222e', '#1b7c83',
    '#bf3989', '#6e7781'];
  var SVGNS = 'http://www.w3.org/2000/svg';

  var DATA, KS, PROBLEMS, BYKEY = {};
  var DEFAULTS = { q: '', suite: '', category: '', show: 'all', sort: 'id', page: 1, size: 50 };
  var state = {};
  var open = {};        // problem key -> selected sample position
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
  var hayCache = null;

  function fail(msg) {
    document.documentElement.setAttribute('data-error', msg);
    var b = document.getElementById('error-banner');
    if (b) { b.textContent = 'The report could not be drawn: ' + msg; b.hidden = false; }
  }
  window.addEventListener('error', function (e) { fail(String(e.message || e)); });

  // ---- small DOM helpers (text always goes in as text, never as markup) ------------------
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        if (!Object.prototype.hasOwnProperty.call(attrs, k) || attrs[k] == null) continue;
        if (k === 'text') e.textContent = attrs[k];
        else if (k === 'style') e.style.cssText = attrs[k];
        else e.setAttribute(k, attrs[k]);
      }
    }
    if (kids) append(e, kids);
    return e;
  }
  function append(e, kids) {
    for (var i = 0; i < kids.length; i++) {
      var c = kids[i];
      if (c == null || c === false) continue;
      e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return e;
  }
  function svg(tag, attrs, parent) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) if (attrs[k] != null) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function svgTitle(parent, text) {
    var t = svg('title', {}, parent);
    t.textContent = text;
    return t;
  }
  function esc(s) {
    return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;');
  }
  function pct(v) { return v == null ? 'n/a' : (v * 100).toFixed(1) + '%'; }
  function num(v) { return v == null ? '' : String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
  function secs(v) {
    if (v == null) return '';
    if (v < 1) return (v * 1000).toFixed(0) + ' ms';
    if (v < 120) return v.toFixed(2) + ' s';
    var m = Math.floor(v / 60);
    if (m < 120) return m + ' min ' + Math.round(v - 60 * m) + ' s';
    return Math.floor(m / 60) + ' h ' + (m % 60) + ' min';
  }
  function swatch(outcome) {
    return el('i', { 'class': 'sw', style: 'background:' + (COLORS[outcome] || '#999') });
  }
  function badge(outcome) {
    return el('span', {
      'class': 'badge b-' + outcome, 'data-outcome': outcome,
      style: 'background:' + (COLORS[outcome] || '#999'), text: LABELS[outcome] || outcome
    });
  }
  function outcomeBar(counts, small) {
    var total = 0, o;
    for (o in counts) total += counts[o];
    var bar = el('div', { 'class': 'obar' + (small ? ' small' : '') });
    if (!total) return bar;
    DATA.outcomes.forEach(function (o) {
      var c = counts[o] || 0;
      if (!c) return;
      bar.appendChild(el('i', {
        style: 'width:' + (100 * c / total) + '%;background:' + COLORS[o],
        title: (LABELS[o] || o) + ': ' + num(c) + ' (' + (100 * c / total).toFixed(1) + '%)'
      }));
    });
    return bar;
  }

  // ---- syntax highlighting ---------------------------------------------------------------
  function words(s) {
    var m = {};
    s.split(' ').forEach(function (w) { m[w] = 1; });
    return m;
  }
  var PY_KW = words('False None True and as assert async await break class continue def del ' +
    'elif else except finally for from global if import in is lambda nonlocal not or pass ' +
    'raise return try while with yield match case');
  var PY_BI = words('abs all any bool bytes callable chr dict dir divmod enumerate filter ' +
    'float format frozenset getattr hasattr hash hex id int isinstance issubclass iter len ' +
    'list map max min next object oct open ord pow print range repr reversed round set ' +
    'setattr slice sorted str sum super tuple type zip self cls Exception ValueError ' +
    'TypeError KeyError IndexError RuntimeError NotImplementedError StopIteration');
  var JS_KW = words('async await break case catch class const continue debugger default ' +
    'delete do else export extends false finally for from function if import in ' +
    'instanceof let new null of return static super switch this throw true try typeof ' +
    'undefined var void while with yield');
  var JS_BI = words('Array Boolean Date Error JSON Map Math Number Object Promise RegExp Set ' +
    'String Symbol console document window React useState useEffect useRef useMemo ' +
    'useCallback useContext useReducer fetch require module exports expect test it describe ' +
    'render screen fireEvent waitFor');
  var PY_RE = new RegExp([
    '(#[^\\n]*)',
    '((?:[rRbBuUfF]{1,2})?(?:"{3}[\\s\\S]*?(?:"{3}|$)|\'{3}[\\s\\S]*?(?:\'{3}|$)|' +
      '"(?:\\\\.|[^"\\\\\\n])*"?|\'(?:\\\\.|[^\'\\\\\\n])*\'?))',
    '(\\b(?:0[xXoObB][0-9a-fA-F_]+|\\d[\\d_]*\\.?[\\d_]*(?:[eE][+-]?\\d+)?j?)\\b)',
    '(@[A-Za-z_][\\w.]*)',
    '([A-Za-z_]\\w*)'
  ].join('|'), 'g');
  var JS_RE = new RegExp([
    '(\\/\\/[^\\n]*|\\/\\*[\\s\\S]*?(?:\\*\\/|$))',
    '("(?:\\\\.|[^"\\\\\\n])*"?|\'(?:\\\\.|[^\'\\\\\\n])*\'?|`(?:\\\\[\\s\\S]|[^`\\\\])*`?)',
    '(\\b(?:0[xXoObB][0-9a-fA-F_]+|\\d[\\d_]*\\.?[\\d_]*(?:[eE][+-]?\\d+)?n?)\\b)',
    '(<\\/?[A-Za-z][\\w.]*|\\/>)',
    '([A-Za-z_$][\\w$]*)'
  ].join('|'), 'g');

  function highlight(code, lang) {
    if (code.length > 300000) return esc(code);
    var js = lang === 'js';
    var re = js ? JS_RE : PY_RE, kw = js ? JS_KW : PY_KW, bi = js ? JS_BI : PY_BI;
    var out = [], last = 0, prev = '', m;
    re.lastIndex = 0;
    while ((m = re.exec(code)) !== null) {
      if (m[0] === '') { re.lastIndex++; continue; }
      if (m.index > last) out.push(esc(code.slice(last, m.index)));
      var t = m[0], cls = null;
      if (m[1]) cls = 'com';
      else if (m[2]) cls = 'str';
      else if (m[3]) cls = 'num';
      else if (m[4]) cls = js ? 'tag' : 'dec';
      else if (kw[t] === 1) cls = 'kw';
      else if (prev === 'def' || prev === 'class' || prev === 'function') cls = 'fn';
      else if (bi[t] === 1) cls = 'bi';
      out.push(cls ? '<span class="tk-' + cls + '">' + esc(t) + '</span>' : esc(t));
      if (m[5]) prev = t; else if (!m[1]) prev = '';
      last = re.lastIndex;
    }
    if (last < code.length) out.push(esc(code.slice(last)));
    return out.join('');
  }
  function completionOf(s) {
    if (s.completion != null) return s.completion;
    var around = s.completion_around;
    return around ? around[0] + s.code + around[1] : '';
  }
  function langOf(sample, fallback) {
    if (sample) {
      if (sample.mode === 'jest') return 'js';
      if (/^python/.test(sample.mode)) return 'py';
    }
    var c = (sample && (sample.code || completionOf(sample))) || fallback || '';
    if (/^\s*def\s|^\s*from\s+\S+\s+import\s|:\s*$/m.test(c)) return 'py';
    if (/^\s*(import\s.+\sfrom\s|export\s|const\s|let\s|function\s)|=>|<\/[A-Za-z]/m.test(c)) {
      return 'js';
    }
    return 'py';
  }
  function codeBox(code, lang, wrap) {
    code = code.replace(/\n$/, '');
    var lines = code.split('\n').length;
    var g = [];
    for (var i = 1; i <= lines; i++) g.push(i);
    var pre = el('pre', { 'class': 'code lang-' + lang });
    pre.innerHTML = highlight(code, lang);  // highlight() escapes every character it emits
    return el('div', { 'class': 'codebox' + (wrap ? ' soft' : '') }, [
      wrap ? null : el('pre', { 'class': 'gutter', 'aria-hidden': 'true', text: g.join('\n') }),
      pre
    ]);
  }

  // ---- header, cards, table ----------------------------------------------------------------
  function renderHeader() {
    var meta = DATA.meta || {};
    var model = meta.model || 'unknown model';
    document.getElementById('model').textContent = model;
    document.title = 'pytest-codegen · ' + model;
    var line = document.getElementById('meta-line');
    function item(label, value) {
      if (value == null || value === '') return;
      line.appendChild(el('span', {}, [label + ' ', el('b', { text: String(value) })]));
    }
    var started = meta.started;
    if (typeof started === 'number') started = new Date(started * 1000).toISOString();
    item('started', started ? String(started).replace('T', ' ').slice(0, 19) : null);
    item('duration', meta.duration_s != null ? secs(meta.duration_s) : null);
    item('source', meta.source ? String(meta.source).split(/[\\/]/).pop() : null);
    item('pytest', meta.pytest_version);
    item('pytest-codegen', meta.plugin_version);
  }
  function card(stat, label, value, sub, raw) {
    return el('div', { 'class': 'card', 'data-stat': stat, 'data-value': raw }, [
      el('div', { 'class': 'label', text: label }),
      el('div', { 'class': 'value', text: value }),
      sub ? el('div', { 'class': 'sub', text: sub }) : null
    ]);
  }
  function renderCards() {
    var t = DATA.totals, box = document.getElementById('cards');
    var suites = {};
    PROBLEMS.forEach(function (p) { suites[p.suite] = 1; });
    var ns = Object.keys(suites).length;
    box.appendChild(card('problems', 'Problems', num(t.problems),
      ns + (ns === 1 ? ' suite' : ' suites'), t.problems));
    box.appendChild(card('samples', 'Samples', num(t.samples), num(t.graded) + ' graded',
      t.samples));
    box.appendChild(card('passed', 'Passed samples', num(t.passed),
      t.graded ? pct(t.passed / t.graded) + ' of graded' : 'none graded', t.passed));
    KS.forEach(function (k) {
      var v = t.pass_at_k[String(k)];
      box.appendChild(card('pass@' + k, 'pass@' + k, pct(v),
        v == null ? 'a problem has fewer than ' + k + ' graded samples' : 'mean over problems',
        v == null ? '' : v));
    });
    var legend = el('div', { 'class': 'legend' });
    DATA.outcomes.forEach(function (o) {
      var c = t.counts[o] || 0;
      legend.appendChild(el('span', { 'data-outcome': o, 'data-count': c }, [
        swatch(o), (LABELS[o] || o) + ' ', el('b', { text: num(c) })
      ]));
    });
    var wide = el('div', { 'class': 'card wide', 'data-stat': 'outcomes' }, [
      el('div', { 'class': 'label', text: 'Outcomes of all samples' }),
      outcomeBar(t.counts), legend
    ]);
    box.appendChild(wide);
  }
  function renderSummary() {
    var table = document.getElementById('summary-table');
    var head = el('tr', {}, [
      el('th', { text: 'Suite / category' }), el('th', { text: 'Problems' }),
      el('th', { text: 'Samples' }), el('th', { text: 'Passed' }),
      el('th', { text: 'Outcomes' })
    ]);
    KS.forEach(function (k) { head.appendChild(el('th', { text: 'pass@' + k })); });
    table.appendChild(el('thead', {}, [head]));
    var body = el('tbody');
    DATA.summary.forEach(function (row) {
      var isSuite = row.category == null;
      var counts = row.counts || {};
      var graded = 0;
      DATA.graded_outcomes.forEach(function (o) { graded += counts[o] || 0; });
      var tr = el('tr', {
        'class': isSuite ? 'suite-row' : 'cat-row', 'data-suite': row.suite,
        'data-category': isSuite ? null : row.category,
        title: 'Show the problems of ' + row.suite + (isSuite ? '' : ' / ' + row.category)
      }, [
        el('td', { text: isSuite ? row.suite : (row.category || '(no category)') }),
        el('td', { 'data-col': 'problems', text: num(row.problems) }),
        el('td', { 'data-col': 'samples', text: num(row.samples) }),
        el('td', { 'data-col': 'passed', text: num(counts.passed || 0) + ' / ' + num(graded) }),
        el('td', { 'class': 'outc' }, [outcomeBar(counts, true)])
      ]);
      KS.forEach(function (k) {
        var v = (row.pass_at_k || {})[String(k)];
        var cell = el('td', { 'data-k': k, 'data-value': v == null ? '' : v });
        if (v == null) {
          cell.appendChild(el('span', {
            'class': 'na', text: 'n/a',
            title: 'some problem has fewer than ' + k + ' graded samples'
          }));
        } else {
          cell.appendChild(el('span', { 'class': 'pk' }, [
            el('span', { text: pct(v) }),
            el('span', { 'class': 'mini' }, [el('i', { style: 'width:' + (100 * v) + '%' })])
          ]));
        }
        tr.appendChild(cell);
      });
      tr.addEventListener('click', function () {
        setState({ suite: row.suite, category: isSuite ? '' : (row.category || ''), page: 1 });
        document.getElementById('problems-panel').scrollIntoView({ block: 'start' });
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
  }

  // ---- charts -------------------------------------------------------------------------------
  function renderPassK() {
    var box = document.getElementById('chart-passk');
    var rows = DATA.summary.filter(function (r) { return r.category == null; });
    var W = 560, H = 260, L = 46, R = 18, T = 14, B = 38;
    var s = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img',
      'aria-label': 'pass@k over k per suite' }, box);
    var kmin = KS[0], kmax = KS[KS.length - 1];
    function x(k) { return kmax === kmin ? (L + W - R) / 2 : L + (k - kmin) / (kmax - kmin) *
      (W - L - R); }
    function y(v) { return T + (1 - v) * (H - T - B); }
    [0, 0.25, 0.5, 0.75, 1].forEach(function (v) {
      svg('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: v ? '#eef0f2' : '#c9ced4' }, s);
      svg('text', { x: L - 8, y: y(v) + 4, 'text-anchor': 'end' }, s).textContent =
        (v * 100) + '%';
    });
    KS.forEach(function (k) {
      svg('line', { x1: x(k), x2: x(k), y1: T, y2: H - B, stroke: '#f3f4f6' }, s);
      svg('text', { x: x(k), y: H - B + 16, 'text-anchor': 'middle' }, s).textContent = k;
    });
    svg('text', { x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle',
      'class': 'axis-title' }, s).textContent = 'k (samples drawn)';
    var legend = el('div', { 'class': 'legend' });
    rows.forEach(function (row, i) {
      var color = SERIES[i % SERIES.length];
      var d = '', pen = false, pts = [];
      KS.forEach(function (k) {
        var v = (row.pass_at_k || {})[String(k)];
        if (v == null) { pen = false; return; }
        d += (pen ? 'L' : 'M') + x(k).toFixed(1) + ' ' + y(v).toFixed(1);
        pen = true;
        pts.push([k, v]);
      });
      var g = svg('g', { 'data-suite': row.suite }, s);
      if (d) svg('path', { d: d, fill: 'none', stroke: color, 'stroke-width': 2.2 }, g);
      pts.forEach(function (p) {
        var c = svg('circle', { cx: x(p[0]), cy: y(p[1]), r: 4, fill: '#fff', stroke: color,
          'stroke-width': 2, 'data-k': p[0], 'data-value': p[1] }, g);
        svgTitle(c, row.suite + ': pass@' + p[0] + ' = ' + pct(p[1]));
      });
      var last = pts.length ? pts[pts.length - 1] : null;
      legend.appendChild(el('span', {}, [
        el('i', { 'class': 'sw', style: 'background:' + color }), row.suite + ' ',
        el('b', { text: last ? 'pass@' + last[0] + ' ' + pct(last[1]) : 'n/a' })
      ]));
    });
    if (!rows.length) legend.appendChild(el('span', { text: 'No suites.' }));
    box.appendChild(legend);
  }
  function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + '…' : s; }
  function renderOutcomes() {
    var box = document.getElementById('chart-outcomes');
    var cats = DATA.summary.filter(function (r) { return r.category != null; });
    var rows = cats.length ? cats : DATA.summary;
    var multi = {};
    rows.forEach(function (r) { multi[r.suite] = 1; });
    multi = Object.keys(multi).length > 1;
    var W = 560, BH = 16, GAP = 9, LW = 170, T = 6, NW = 54;
    var H = T + rows.length * (BH + GAP) + 4;
    var s = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img',
      'aria-label': 'outcomes per category' }, box);
    var present = {};
    rows.forEach(function (row, i) {
      var counts = row.counts || {}, total = 0;
      DATA.outcomes.forEach(function (o) { total += counts[o] || 0; });
      var yy = T + i * (BH + GAP);
      var name = row.category == null ? row.suite : (row.category || '(no category)');
      if (multi && row.category != null) name = row.suite + ' / ' + name;
      var g = svg('g', { 'data-suite': row.suite, 'data-category': row.category }, s);
      var label = svg('text', { x: LW - 8, y: yy + BH / 2 + 4, 'text-anchor': 'end' }, g);
      label.textContent = clip(name, 26);
      svgTitle(label, name);
      svg('rect', { x: LW, y: yy, width: W - LW - NW, height: BH, fill: '#eef0f2', rx: 3 }, g);
      var xx = LW;
      DATA.outcomes.forEach(function (o) {
        var c = counts[o] || 0;
        if (!c || !total) return;
        present[o] = 1;
        var w = c / total * (W - LW - NW);
        var r = svg('rect', { x: xx, y: yy, width: Math.max(w, 0.5), height: BH,
          fill: COLORS[o], 'data-outcome': o, 'data-count': c }, g);
        svgTitle(r, name + ': ' + (LABELS[o] || o) + ' ' + num(c) + ' of ' + num(total) +
          ' (' + (100 * c / total).toFixed(1) + '%)');
        xx += w;
      });
      svg('text', { x: W - NW + 8, y: yy + BH / 2 + 4 }, g).textContent = num(total);
    });
    var legend = el('div', { 'class': 'legend' });
    DATA.outcomes.forEach(function (o) {
      if (present[o]) legend.appendChild(el('span', {}, [swatch(o), LABELS[o] || o]));
    });
    box.appendChild(legend);
  }

  // ---- problem list -----------------------------------------------------------------------
  function hay(i) {
    if (!hayCache) hayCache = new Array(PROBLEMS.length);
    var h = hayCache[i];
    if (h == null) {
      var p = PROBLEMS[i], parts = [p.task_id, p.suite, p.category, p.prompt];
      p.samples.forEach(function (s) { if (s.error) parts.push(s.error); });
      h = hayCache[i] = parts.join('\n').toLowerCase();
    }
    return h;
  }
  function rate(p) { return p.n ? p.c / p.n : null; }
  function matchShow(p) {
    var show = state.show;
    if (show === 'failing') return p.c < p.n;
    if (show === 'never') return p.n > 0 && p.c === 0;
    if (show === 'perfect') return p.n > 0 && p.c === p.n;
    if (show.slice(0, 2) === 'o:') return (p.counts[show.slice(2)] || 0) > 0;
    return true;
  }
  function byId(a, b) {
    return collator.compare(a.suite, b.suite) || collator.compare(a.task_id, b.task_id);
  }
  function visible() {
    var q = state.q.trim().toLowerCase(), out = [];
    for (var i = 0; i < PROBLEMS.length; i++) {
      var p = PROBLEMS[i];
      if (state.suite && p.suite !== state.suite) continue;
      if (state.category && p.category !== state.category) continue;
      if (!matchShow(p)) continue;
      if (q && hay(i).indexOf(q) < 0) continue;
      out.push(p);
    }
    var sort = state.sort;
    out.sort(function (a, b) {
      if (sort === 'rate-asc' || sort === 'rate-desc') {
        var ra = rate(a), rb = rate(b);
        if (ra == null || rb == null) {
          if (ra != null || rb != null) return ra == null ? 1 : -1;
        } else if (ra !== rb) {
          return sort === 'rate-asc' ? ra - rb : rb - ra;
        }
      } else if (sort === 'time-desc' && a.duration_s !== b.duration_s) {
        return b.duration_s - a.duration_s;
      }
      return byId(a, b);
    });
    return out;
  }
  function strip(p) {
    var box = el('span', { 'class': 'strip' });
    var n = Math.min(p.samples.length, STRIP_MAX);
    for (var i = 0; i < n; i++) {
      var s = p.samples[i];
      box.appendChild(el('i', {
        style: 'background:' + (COLORS[s.outcome] || '#999'),
        title: '#' + (s.sample_index == null ? i : s.sample_index) + ' ' +
          (LABELS[s.outcome] || s.outcome)
      }));
    }
    if (p.samples.length > n) {
      box.appendChild(el('span', { 'class': 'more', text: '+' + (p.samples.length - n) }));
    }
    return box;
  }
  function rateColor(r) {
    if (r == null) return '#c9ced4';
    return r >= 0.999 ? COLORS.passed : r >= 0.5 ? '#7bc96f' : r > 0 ? COLORS.timeout
      : COLORS.failed;
  }
  function problemRow(p) {
    var r = rate(p), isOpen = Object.prototype.hasOwnProperty.call(open, p.key);
    var head = el('div', {
      'class': 'prob-head', role: 'button', tabindex: '0',
      'aria-expanded': isOpen ? 'true' : 'false'
    }, [
      el('span', { 'class': 'chev' }),
      el('span', { 'class': 'pid', title: p.task_id, text: p.task_id }),
      el('span', { 'class': 'tags' }, [
        el('span', { 'class': 'tag', text: p.suite }),
        p.category ? el('span', { 'class': 'tag cat', text: p.category }) : null
      ]),
      strip(p),
      el('span', { 'class': 'frac', title: 'passed / graded samples', text: p.c + '/' + p.n }),
      el('span', { 'class': 'rate' }, [
        el('span', { 'class': 'bar' }, [el('i', {
          style: 'width:' + (r == null ? 0 : 100 * r) + '%;background:' + rateColor(r)
        })]),
        el('span', { text: r == null ? 'n/a' : Math.round(100 * r) + '%' })
      ])
    ]);
    var row = el('div', {
      'class': 'prob' + (isOpen ? ' open' : ''), 'data-key': p.key, 'data-task': p.task_id,
      'data-suite': p.suite, 'data-rate': r == null ? '' : r
    }, [head]);
    function toggle() {
      if (Object.prototype.hasOwnProperty.call(open, p.key)) {
        delete open[p.key];
        row.classList.remove('open');
        head.setAttribute('aria-expanded', 'false');
        var d = row.querySelector('.drill');
        if (d) row.removeChild(d);
        writeHash(null);
      } else {
        open[p.key] = defaultSample(p);
        row.classList.add('open');
        head.setAttribute('aria-expanded', 'true');
        row.appendChild(drill(p));
        writeHash(p);
      }
    }
    head.addEventListener('click', toggle);
    head.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); toggle(); }
    });
    if (isOpen) row.appendChild(drill(p));
    return row;
  }
  function defaultSample(p) {
    // the first graded sample that did not pass says the most; else the first sample
    for (var i = 0; i < p.samples.length; i++) {
      var o = p.samples[i].outcome;
      if (o !== 'passed' && DATA.graded_outcomes.indexOf(o) >= 0) return i;
    }
    return 0;
  }

  // ---- drill-down (built only when a problem is opened) ----------------------------------
  function drill(p) {
    var box = el('div', { 'class': 'drill', 'data-key': p.key });
    var facts = el('div', { 'class': 'facts' }, [
      el('span', {}, ['graded ', el('b', { text: String(p.n) })]),
      el('span', {}, ['passed ', el('b', { text: String(p.c) })]),
      el('span', {}, ['run time ', el('b', { text: secs(p.duration_s) })])
    ]);
    KS.forEach(function (k) {
      facts.appendChild(el('span', {}, ['pass@' + k + ' ', el('b', {
        'data-k': k, text: pct(p.pass_at_k[String(k)])
      })]));
    });
    append(box, [facts]);
    var lang = langOf(p.samples[0], p.prompt);
    if (p.prompt) {
      append(box, [
        el('h4', { text: 'Prompt' }),
        el('div', { 'class': 'prompt' }, [codeBox(p.prompt, lang, true)])
      ]);
    }
    if (!p.samples.length) return box;
    box.appendChild(el('h4', { text: 'Samples' }));
    var tabs = el('div', { 'class': 'tabs', role: 'tablist' });
    var holder = el('div', { 'class': 'sample-holder' });
    var buttons = [];
    function select(i) {
      open[p.key] = i;
      buttons.forEach(function (b, j) {
        b.setAttribute('aria-selected', j === i ? 'true' : 'false');
      });
      holder.textContent = '';
      holder.appendChild(sampleView(p, p.samples[i], i));
    }
    p.samples.forEach(function (s, i) {
      var b = el('button', {
        type: 'button', 'class': 'tab', role: 'tab', 'data-outcome': s.outcome,
        title: LABELS[s.outcome] || s.outcome
      }, [swatch(s.outcome), '#' + (s.sample_index == null ? i : s.sample_index)]);
      b.addEventListener('click', function () { select(i); writeHash(p); });
      buttons.push(b);
      tabs.appendChild(b);
    });
    append(box, [tabs, holder]);
    var sel = open[p.key];
    select(sel >= 0 && sel < p.samples.length ? sel : 0);
    return box;
  }
  function sampleView(p, s, i) {
    var idx = s.sample_index == null ? i : s.sample_index;
    var view = el('div', { 'class': 'sample', 'data-index': idx, 'data-outcome': s.outcome }, [
      el('div', { 'class': 'sample-head' }, [
        badge(s.outcome),
        el('b', { text: 'sample #' + idx }),
        s.duration_s != null ? el('span', { text: secs(s.duration_s) }) : null,
        s.mode ? el('span', { text: s.mode }) : null,
        s.model && s.model !== (DATA.meta || {}).model ? el('span', { text: s.model }) : null,
        s.nodeid ? el('span', { 'class': 'nodeid', text: s.nodeid }) : null
      ])
    ]);
    if (s.error) view.appendChild(el('div', { 'class': 'errmsg', text: s.error }));
    if (s.tests && s.tests.length) {
      var npass = s.tests.filter(function (t) { return t.status === 'passed'; }).length;
      var tb = el('tbody');
      s.tests.forEach(function (t) {
        var st = t.status || '';
        tb.appendChild(el('tr', { 'data-status': st }, [
          el('td', {}, [COLORS[st] ? badge(st) : el('span', { 'class': 'badge',
            style: 'background:#8c959f', text: st || '?' })]),
          el('td', { 'class': 'tname', text: t.name }),
          el('td', { 'class': 'tmsg', text: t.message || '' })
        ]));
      });
      append(view, [
        el('h4', { text: 'Tests (' + npass + ' of ' + s.tests.length + ' passed)' }),
        el('table', { 'class': 'tests' }, [tb])
      ]);
    }
    var lang = langOf(s, p.prompt);
    if (s.code) {
      append(view, [el('h4', { text: 'Extracted code' }), codeBox(s.code, lang, false)]);
    } else {
      view.appendChild(el('h4', { text: 'Extracted code' }));
      view.appendChild(el('div', { 'class': 'muted', text: s.outcome === 'missing' ||
        s.outcome === 'api_error' ? 'No reply from the model.' :
        'No code could be extracted from the reply.' }));
    }
    var reply = completionOf(s);
    if (reply && reply !== s.code) {
      var raw = el('details', { 'class': 'more' + (s.code ? '' : ' raw-open') },
        [el('summary', { text: 'Model reply (raw)' })]);
      if (!s.code) raw.open = true;
      var built = false;
      function build() {
        if (built || !raw.open) return;
        built = true;
        raw.appendChild(codeBox(reply, lang, true));
      }
      raw.addEventListener('toggle', build);
      build();
      view.appendChild(raw);
    }
    if (s.stderr) {
      append(view, [el('h4', { text: 'stderr' }), el('pre', { 'class': 'out', text: s.stderr })]);
    }
    if (s.stdout) {
      var out = el('details', { 'class': 'more' }, [el('summary', { text: 'stdout' }),
        el('pre', { 'class': 'out', text: s.stdout })]);
      view.appendChild(out);
    }
    return view;
  }

  // ---- state, URL fragment, controls ------------------------------------------------------
  function parseHash() {
    var h = location.hash.replace(/^#/, ''), out = {};
    if (!h) return out;
    h.split('&').forEach(function (part) {
      var i = part.indexOf('=');
      if (i < 0) return;
      try {
        out[decodeURIComponent(part.slice(0, i))] =
          decodeURIComponent(part.slice(i + 1).replace(/\+/g, ' '));
      } catch (e) { /* ignore a malformed part */ }
    });
    return out;
  }
  function writeHash(p) {
    var parts = [];
    Object.keys(DEFAULTS).forEach(function (k) {
      if (String(state[k]) !== String(DEFAULTS[k])) {
        parts.push(k + '=' + encodeURIComponent(state[k]));
      }
    });
    if (p) {
      parts.push('problem=' + encodeURIComponent(p.key).replace(/%2F/g, '/'));
      var sel = open[p.key];
      if (sel) {
        var s = p.samples[sel];
        parts.push('sample=' + (s && s.sample_index != null ? s.sample_index : sel));
      }
    }
    var h = parts.length ? '#' + parts.join('&') : ' ';
    try { history.replaceState(null, '', h === ' ' ? location.pathname + location.search : h); }
    catch (e) { /* file:// in some browsers */ }
  }
  function setState(changes) {
    for (var k in changes) state[k] = changes[k];
    syncControls();
    render();
    writeHash(null);
  }
  function fillSelect(sel, options, value) {
    sel.textContent = '';
    options.forEach(function (o) { sel.appendChild(el('option', { value: o[0], text: o[1] })); });
    sel.value = value;
    if (sel.value !== value) sel.value = options.length ? options[0][0] : '';
  }
  function syncControls() {
    var suites = {}, cats = {};
    PROBLEMS.forEach(function (p) {
      suites[p.suite] = (suites[p.suite] || 0) + 1;
      if (!state.suite || p.suite === state.suite) cats[p.category] = (cats[p.category] || 0) + 1;
    });
    var so = [['', 'All suites']];
    Object.keys(suites).sort(collator.compare).forEach(function (s) {
      so.push([s, s + ' (' + suites[s] + ')']);
    });
    fillSelect(document.getElementById('f-suite'), so, state.suite);
    var co = [['', 'All categories']];
    Object.keys(cats).sort(collator.compare).forEach(function (c) {
      co.push([c, (c || '(no category)') + ' (' + cats[c] + ')']);
    });
    fillSelect(document.getElementById('f-category'), co, state.category);
    state.category = document.getElementById('f-category').value;
    var sh = [['all', 'All problems'], ['failing', 'With failing samples'],
      ['never', 'Never passed'], ['perfect', 'Always passed']];
    DATA.outcomes.forEach(function (o) {
      if (o !== 'passed' && DATA.totals.counts[o]) {
        sh.push(['o:' + o, 'With ' + (LABELS[o] || o) + ' samples']);
      }
    });
    fillSelect(document.getElementById('f-show'), sh, state.show);
    state.show = document.getElementById('f-show').value;
    document.getElementById('f-sort').value = state.sort;
    if (document.getElementById('f-sort').value !== state.sort) {
      state.sort = 'id';
      document.getElementById('f-sort').value = 'id';
    }
    var q = document.getElementById('f-q');
    if (q.value !== state.q) q.value = state.q;
  }
  function render() {
    var list = document.getElementById('problem-list');
    var items = visible();
    var size = state.size, pages = Math.max(1, Math.ceil(items.length / size));
    if (state.page > pages) state.page = pages;
    if (state.page < 1) state.page = 1;
    var start = (state.page - 1) * size, end = Math.min(items.length, start + size);
    list.textContent = '';
    list.setAttribute('data-count', items.length);
    if (!items.length) {
      list.appendChild(el('div', { 'class': 'empty', text: 'No problems match the filters.' }));
    }
    var frag = document.createDocumentFragment();
    for (var i = start; i < end; i++) frag.appendChild(problemRow(items[i]));
    list.appendChild(frag);
    document.getElementById('list-status').textContent = num(items.length) + ' of ' +
      num(PROBLEMS.length) + ' problems';
    renderPager(items.length, start, end, pages);
  }
  function renderPager(total, start, end, pages) {
    var pager = document.getElementById('pager');
    pager.textContent = '';
    var info = el('span', { 'class': 'info', 'data-page': state.page, 'data-pages': pages,
      text: total ? 'Showing ' + num(start + 1) + '–' + num(end) + ' of ' + num(total) +
        ' · page ' + state.page + ' of ' + pages : 'Nothing to show' });
    function btn(label, page, disabled) {
      var b = el('button', { type: 'button', 'class': 'btn', text: label });
      if (disabled) b.disabled = true;
      b.addEventListener('click', function () {
        setState({ page: page });
        document.getElementById('problems-panel').scrollIntoView({ block: 'start' });
      });
      return b;
    }
    var sizeSel = el('select', { 'aria-label': 'Problems per page' });
    PAGE_SIZES.forEach(function (n) {
      sizeSel.appendChild(el('option', { value: n, text: n + ' per page' }));
    });
    sizeSel.value = String(state.size);
    sizeSel.addEventListener('change', function () {
      setState({ size: parseInt(sizeSel.value, 10), page: 1 });
    });
    append(pager, [info, sizeSel, btn('« First', 1, state.page <= 1),
      btn('‹ Prev', state.page - 1, state.page <= 1),
      btn('Next ›', state.page + 1, state.page >= pages),
      btn('Last »', pages, state.page >= pages)]);
  }
  function applyHash() {
    var h = parseHash();
    state = {};
    for (var k in DEFAULTS) state[k] = DEFAULTS[k];
    if (h.q != null) state.q = h.q;
    if (h.suite != null) state.suite = h.suite;
    if (h.category != null) state.category = h.category;
    if (h.show) state.show = h.show;
    if (h.sort) state.sort = h.sort;
    var size = parseInt(h.size, 10);
    if (PAGE_SIZES.indexOf(size) >= 0) state.size = size;
    var page = parseInt(h.page, 10);
    if (page > 0) state.page = page;
    var target = null;
    if (h.problem != null) {
      target = BYKEY[h.problem] || null;
      if (!target) {
        for (var i = 0; i < PROBLEMS.length && !target; i++) {
          if (PROBLEMS[i].task_id === h.problem) target = PROBLEMS[i];
        }
      }
    }
    syncControls();
    if (target) {
      var items = visible();
      var pos = items.indexOf(target);
      if (pos < 0) {  // the filters hide it: show it anyway, unfiltered
        state.q = ''; state.suite = ''; state.category = ''; state.show = 'all';
        syncControls();
        items = visible();
        pos = items.indexOf(target);
      }
      state.page = Math.floor(pos / state.size) + 1;
      var sel = defaultSample(target);
      if (h.sample != null) {
        target.samples.forEach(function (s, j) {
          if (String(s.sample_index == null ? j : s.sample_index) === h.sample) sel = j;
        });
      }
      open = {};
      open[target.key] = sel;
    }
    render();
    if (target) {
      var row = document.querySelector('.prob.open');
      if (row) row.scrollIntoView({ block: 'start' });
    }
  }
  function wireControls() {
    var timer = null;
    document.getElementById('f-q').addEventListener('input', function (e) {
      var v = e.target.value;
      clearTimeout(timer);
      timer = setTimeout(function () { setState({ q: v, page: 1 }); }, 160);
    });
    document.getElementById('f-suite').addEventListener('change', function (e) {
      setState({ suite: e.target.value, category: '', page: 1 });
    });
    ['category', 'show', 'sort'].forEach(function (k) {
      document.getElementById('f-' + k).addEventListener('change', function (e) {
        var c = { page: 1 };
        c[k] = e.target.value;
        setState(c);
      });
    });
    document.getElementById('f-reset').addEventListener('click', function () {
      open = {};
      var c = {};
      for (var k in DEFAULTS) c[k] = DEFAULTS[k];
      setState(c);
    });
    window.addEventListener('hashchange', applyHash);
  }
  function renderFooter() {
    var meta = DATA.meta || {};
    document.getElementById('foot').textContent = 'Generated by pytest-codegen' +
      (meta.plugin_version ? ' ' + meta.plugin_version : '') + ' · ' +
      num(DATA.totals.samples) + ' samples of ' + num(DATA.totals.problems) + ' problems';
  }

  function main() {
    DATA = JSON.parse(document.getElementById('codegen-data').textContent);
    KS = DATA.ks;
    PROBLEMS = DATA.problems;
    PROBLEMS.forEach(function (p) { BYKEY[p.key] = p; });
    renderHeader();
    renderCards();
    renderSummary();
    renderPassK();
    renderOutcomes();
    wireControls();
    applyHash();
    renderFooter();
    document.body.setAttribute('data-ready', '1');
  }
  try { main(); } catch (e) { fail(String((e && e.stack) || e)); }
})();
"""


if __name__ == "__main__":
    raise SystemExit(main())
