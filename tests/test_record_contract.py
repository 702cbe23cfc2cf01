"""One record contract: every consumer counts a problem's samples by the same rule, and the
public API is importable from the package itself."""

from __future__ import annotations

import json

from pytest_codegen.gates.baseline import compare_to_baseline
from pytest_codegen.reporting.html import report_data
from pytest_codegen.reporting.results import load_results
from pytest_codegen.scoring.passk import per_problem, summarize


def record(task: str, index: int, outcome: str) -> dict:
    return {
        "nodeid": f"s.jsonl::{task}[s{index}]",
        "suite": "s",
        "task_id": task,
        "category": "c",
        "sample_index": index,
        "outcome": outcome,
        "passed": outcome == "passed",
    }


def test_a_sample_recorded_twice_counts_once_and_last_everywhere(tmp_path):
    # A results file appended to by a re-run: sample 0 of "a" failed, then passed.
    rows = [
        record("a", 0, "failed"),
        record("a", 1, "failed"),
        record("b", 0, "passed"),
        record("b", 1, "failed"),
        record("a", 0, "passed"),
    ]
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    records = load_results(path)

    assert per_problem(records) == {("s", "a"): (2, 1), ("s", "b"): (2, 1)}
    (suite_row,) = [r for r in summarize(records, [1]) if r.category is None]
    assert suite_row.samples == 4
    assert suite_row.counts["passed"] == 2
    assert suite_row.pass_at_k[1] == 0.5

    page = report_data(records, [suite_row.to_json()], {"k": [1]})
    assert {(p["task_id"], p["n"], p["c"]) for p in page["problems"]} == {("a", 2, 1), ("b", 2, 1)}

    # Against a baseline where every sample failed, the gate sees the same 0.5 now.
    baseline = [record(t, i, "failed") for t in "ab" for i in range(2)]
    comparison = compare_to_baseline(records, baseline, k=1)
    assert comparison.mean_after == suite_row.pass_at_k[1]
    assert comparison.mean_before == 0.0


def test_public_api_is_the_package():
    import pytest_codegen
    from pytest_codegen import Completion, GenerationRequest, Model, Problem, SamplingParams
    from pytest_codegen.models import base

    assert (Completion, GenerationRequest, Model, SamplingParams) == (
        base.Completion,
        base.GenerationRequest,
        base.Model,
        base.SamplingParams,
    )
    assert Problem.__name__ == "Problem"
    assert set(pytest_codegen.__all__) >= {"Model", "Completion", "GenerationRequest"}
