from __future__ import annotations

import json
import math
from itertools import combinations

import pytest
from conftest import XDIST_MODES

from pytest_codegen.scoring.passk import pass_at_k, summarize


def brute_force_pass_at_k(n: int, c: int, k: int) -> float:
    """Fraction of all k-subsets of the n samples that contain a correct one."""
    samples = [True] * c + [False] * (n - c)
    subsets = list(combinations(range(n), k))
    return sum(any(samples[i] for i in s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 9))
def test_estimator_matches_brute_force(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(brute_force_pass_at_k(n, c, k))


def test_k_larger_than_n_is_undefined_not_one():
    assert pass_at_k(3, 3, 5) is None
    assert pass_at_k(0, 0, 1) is None


def test_large_n_is_stable():
    value = pass_at_k(200, 13, 100)
    assert 0.999 < value < 1.0
    assert math.isfinite(value)


def rec(task, outcome, category="c", suite="s"):
    return {"suite": suite, "task_id": task, "category": category, "outcome": outcome}


def test_summary_rows_and_missing_samples():
    records = [
        rec("a", "passed"),
        rec("a", "failed"),
        rec("b", "failed", "d"),
        rec("b", "missing", "d"),
        rec("c", "missing", "d"),  # nothing graded: counted, not scored
    ]
    rows = {(r.suite, r.category): r for r in summarize(records, [1, 2])}
    whole = rows[("s", None)]
    assert whole.problems == 3 and whole.samples == 5
    assert whole.counts["missing"] == 2
    # pass@1: mean of a (1/2) and b (0/1); pass@2 undefined because b has only one sample
    assert whole.pass_at_k[1] == pytest.approx(0.25)
    assert whole.pass_at_k[2] is None
    assert rows[("s", "c")].pass_at_k[2] == pytest.approx(1.0)
    assert rows[("s", "d")].pass_at_k[1] == 0.0


def test_api_errors_are_not_graded():
    rows = summarize([rec("a", "passed"), rec("a", "api_error")], [1])
    assert rows[0].pass_at_k[1] == 1.0
    assert rows[0].counts["api_error"] == 1


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize(
    "without", [["tiny/add"], ["tiny/add", "tiny/Counter", "tiny/reverse_words"]]
)
def test_problems_without_a_category_are_not_a_second_all_row(pytester, tiny, without, xdist):
    # Records without a category (another tool's, a sample that never reported) made a row
    # labelled "(all)", as the suite's own, with a score of its own.
    pytester.runpytest_subprocess(
        "--codegen-model=reference", "tiny.jsonl", "--codegen-results=r.jsonl"
    )
    records = [json.loads(line) for line in (pytester.path / "r.jsonl").read_text().splitlines()]
    for record in records:
        if record["task_id"] in without:
            record["category"] = ""
    (pytester.path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    result = pytester.runpytest_subprocess("--codegen-merge=r.jsonl", *xdist)
    assert result.ret == pytest.ExitCode.OK
    table = [line.split()[:2] for line in result.stdout.lines if line.startswith(("tiny ", "  "))]
    expected = [["tiny", "(all)"], ["(no", "category)"], ["stateful", "1"], ["text", "1"]]
    assert table == (expected if len(without) == 1 else expected[:1])
