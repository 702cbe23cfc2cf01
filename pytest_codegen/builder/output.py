"""What a build writes: the suite file (Exec-CSN format) and the build report.

The suite file is a JSON list our Exec-CSN loader reads, so grading it is the ordinary
``pytest bench.json --codegen-model=...``. Each row has Exec-CSN's keys (``masked_code``
with ``__MASK__``, ``masked_method_no_test``, ``revised_instruction``, ``dummy_docstring``,
``func_name``, ``code``, ``idx``, ``test_code``) plus ``aug_test_code`` (the augmented test,
already part of ``masked_code`` and ``code``, whose ``__main__`` blocks run the two sets one
after the other), ``requirements`` (imports outside the standard library) and ``source``
(path, line, repo, sha256 of the original fragment, the build's node id and model).

A rerun of some fragments (``--lf``, ``-k``, a node id) updates the file: their rows are
replaced or removed, the others stay, unless the input no longer holds their target as it was
built (it is gone, or its source changed).

The report (``<out>.report.json``, and in the terminal) counts examples per step in the form
of the paper's Table 1, lists every rejected fragment with its stage and reason, and gives
tokens and cost per stage and the mutants' kill rates.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..cachedir import atomic_write
from .checks import PLACEHOLDER_DOCSTRING
from .pipeline import API_ERROR, DEBUG_ROUNDS, KEPT, REJECTED
from .stage_prompts import STAGES


def example_row(result: dict[str, Any], nodeid: str, model: str) -> dict[str, Any]:
    """The Exec-CSN row of a kept fragment's result."""
    example = result["example"]
    return {
        "idx": result["id"],
        "func_name": result["func_name"],
        "code": example["graded"],
        "masked_code": example["masked"],
        "masked_method_no_test": example["context"],
        "revised_instruction": example["instruction"],
        "dummy_docstring": PLACEHOLDER_DOCSTRING,
        "test_code": example["test_code"],
        "aug_test_code": example["aug_test_code"],
        "requirements": example["requirements"],
        "mutants": result["mutants"],
        "source": {
            "path": result["path"],
            "line": result["line"],
            "repo": result["repo"],
            "sha256": result["sha256"],
            "nodeid": nodeid,
            "model": model,
        },
    }


def write_suite(
    path: Path,
    rows: list[dict[str, Any]],
    rebuilt: set[str],
    is_stale: Callable[[dict[str, Any]], bool],
) -> tuple[list[dict], list[dict]]:
    """Write ``rows`` to ``path``, keeping the rows of an earlier build of the fragments this
    run did not build (``rebuilt``: node ids of those it did) unless ``is_stale`` (their
    target is gone from the input, or changed since). Returns what was written, and the
    earlier rows dropped as stale."""
    kept: list[dict[str, Any]] = []
    stale: list[dict[str, Any]] = []
    try:
        earlier = earlier_rows(path)
    except (OSError, ValueError):
        earlier = []
    for row in earlier:
        nodeid = row["source"].get("nodeid")
        if nodeid and nodeid not in rebuilt:
            (stale if is_stale(row) else kept).append(row)
    everything = sorted(kept + rows, key=lambda r: r["source"]["nodeid"])
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(everything, indent=1, ensure_ascii=False) + "\n")
    return everything, stale


def earlier_rows(path: Path) -> list[dict[str, Any]]:
    """The rows an earlier build wrote at ``path`` ([] where there is no file, or an empty
    one). ``ValueError`` saying what the file is when it holds anything else: a build must
    not write its suite over a file of the user's."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except UnicodeDecodeError:
        text = None
    try:
        rows = json.loads(text) if text and text.strip() else []
    except ValueError:
        rows = None
    if not isinstance(rows, list) or not all(
        isinstance(row, dict) and isinstance(row.get("source"), dict) for row in rows
    ):
        raise ValueError(
            "is a file no build wrote (a build's suite is a JSON list of examples, each with"
            " its source); give another path, or remove the file"
        )
    return rows


def report_path(out: Path) -> Path:
    return out.with_name(out.name.removesuffix(".json") + ".report.json")


def make_report(
    results: dict[str, dict[str, Any]], price: tuple[float, float] | None
) -> dict[str, Any]:
    """The build report of ``results`` (node id -> result)."""
    from ..generation.cost import cost_usd

    values = list(results.values())
    rounds = [r["passed_round"] for r in values if r["passed_round"] is not None]
    steps = [["1-2", "sandboxing & test generation", sum(1 for r in rounds if r == 0)]]
    for n, name in zip(range(1, DEBUG_ROUNDS + 1), ("1st", "2nd", "3rd"), strict=True):
        steps.append(["3", f"{name} execution & debug iteration", sum(1 for r in rounds if r <= n)])
    steps.append(["4", "post-processing", sum(1 for r in values if r["outcome"] == KEPT)])
    usage: dict[str, dict[str, float]] = {}
    for r in values:
        for stage, u in r["usage"].items():
            total = usage.setdefault(
                stage, {"answers": 0, "cached": 0, "prompt_tokens": 0, "completion_tokens": 0}
            )
            for key, value in u.items():
                total[key] += value
    for u in usage.values():
        if price is not None:
            u["cost_usd"] = round(cost_usd(price, u["prompt_tokens"], u["completion_tokens"]), 6)
    kept = {n: r for n, r in results.items() if r["outcome"] == KEPT}
    mutants = {n: r["mutants"] for n, r in kept.items() if r["mutants"]}
    return {
        "fragments": len(values),
        "kept": len(kept),
        "rejected": sum(1 for r in values if r["outcome"] == REJECTED),
        "api_errors": sum(1 for r in values if r["outcome"] == API_ERROR),
        "steps": [{"step": s, "description": d, "examples": n} for s, d, n in steps],
        "rejections": [
            {"nodeid": n, "stage": r["stage"], "reason": r["reason"]}
            for n, r in sorted(results.items())
            if r["outcome"] != KEPT
        ],
        "usage": {s: usage[s] for s in STAGES if s in usage},
        "augmented": sum(1 for r in kept.values() if r["augmented"]),
        "mutants": {
            "total": sum(m["total"] for m in mutants.values()),
            "killed": sum(m["killed"] for m in mutants.values()),
            "per_example": mutants,
            "none_killed": sorted(n for n, m in mutants.items() if m["total"] and not m["killed"]),
        },
    }


def report_lines(report: dict[str, Any]) -> Iterable[str]:
    """The report as terminal lines."""
    yield f"{report['fragments']} fragments in (Table 1 of the paper: examples whose target passes)"
    for step in report["steps"]:
        yield f"  {step['step']:<4} {step['description']:<36} {step['examples']:>6}"
    yield (
        f"kept {report['kept']}, rejected {report['rejected']}"
        + (f", model API errors {report['api_errors']}" if report["api_errors"] else "")
        + f"; augmented tests for {report['augmented']} of {report['kept']}"
    )
    for r in report["rejections"]:
        yield f"  {r['nodeid']}  {r['stage']}: {r['reason']}"
    for stage, u in report["usage"].items():
        cost = f", ${u['cost_usd']:.4f}" if "cost_usd" in u else ""
        yield (
            f"  {stage:<12} {u['answers']:>5} answers ({u['cached']} from cache), "
            f"{u['prompt_tokens']} prompt + {u['completion_tokens']} completion tokens{cost}"
        )
    m = report["mutants"]
    if m["total"]:
        rate = m["killed"] / m["total"]
        yield f"mutants killed: {m['killed']} of {m['total']} ({rate:.0%})"
    if m["none_killed"]:
        yield f"  tests that kill no mutant (weak): {', '.join(m['none_killed'])}"
