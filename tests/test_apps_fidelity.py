"""APPS grading fidelity: the same rows and samples graded by APPS's own grader (``run_test``
of its ``eval/testing_util.py``, kept unchanged in ``apps_official/`` with a stand-in for
the ``pyext`` it imports) and by the plugin, plain and with ``-n 2``; every sample's verdict
and first failing test agree, except the differences pinned in ``KNOWN_DIFFERENCES`` (each
documented in docs/apps.md).

APPS's grader disables ``os`` functions and sets signal alarms in the process that runs it,
so it runs in a child process (a process per sample, as APPS's ``test_one_solution.py``
runs it), never in pytest's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from apps_fidelity_samples import DRIVER, KNOWN_DIFFERENCES, ROWS, SAMPLES, labelled
from conftest import XDIST_MODES, read_results

OFFICIAL = Path(__file__).parent / "apps_official"

Verdict = tuple[str, "int | None"]


@pytest.fixture(scope="module")
def official_verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Verdict]:
    """Each sample's verdict by APPS's ``run_test``: passed when every test returns True,
    else the first other result, ``False`` a wrong answer, ``-1`` a runtime error or a
    timeout (APPS does not tell them apart) and ``-2`` a compile error."""
    where = tmp_path_factory.mktemp("apps-official")
    rows = {str(r["problem_id"]): r for r in ROWS}
    job = [{"input_output": json.loads(rows[t]["input_output"]), "code": c} for t, _, c in SAMPLES]
    (where / "job.json").write_text(json.dumps(job))
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(OFFICIAL), str(where / "job.json")]
        + [str(where / "results.json")],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=900,
        cwd=where,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((where / "results.json").read_text())
    return {
        labelled(t, label): official_verdict(r)
        for (t, label, _), r in zip(SAMPLES, results, strict=True)
    }


def official_verdict(results: list) -> Verdict:
    for i, result in enumerate(results):
        if result is not True:
            return ("wrong" if result is False else "error", i)
    return "passed", None


def our_verdict(record: dict) -> Verdict:
    outcome = record["outcome"]
    if outcome == "passed":
        return "passed", None
    failed = record.get("first_failure")
    index = int(failed["name"].split(" test ")[1].split(" of ")[0]) - 1 if failed else None
    return ("wrong" if outcome == "failed" else "error", index)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_every_verdict_is_apps_own(pytester, official_verdicts, monkeypatch, xdist):
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(pytester.path / "codegen-cache"))
    (pytester.path / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    (pytester.path / "samples.jsonl").write_text(
        "".join(json.dumps({"task_id": t, "solution": code}) + "\n" for t, _, code in SAMPLES)
    )
    per_task = max(sum(t == task for t, _, _ in SAMPLES) for task, _, _ in SAMPLES)
    pytester.runpytest_subprocess(
        "test.jsonl",
        "--codegen-model=replay:samples.jsonl",
        f"--codegen-samples={per_task}",
        "--codegen-k=1",
        "--codegen-results=r.jsonl",
        *xdist,
        timeout=900,
    )
    labels = {}
    for task in sorted({t for t, _, _ in SAMPLES}):
        for i, label in enumerate(label for t, label, _ in SAMPLES if t == task):
            labels[(task, i)] = labelled(task, label)
    ours = {
        labels[(r["task_id"], r["sample_index"])]: our_verdict(r)
        for r in read_results(pytester.path / "r.jsonl")
        if r["outcome"] != "missing"
    }
    assert set(ours) == set(official_verdicts)
    differences = {
        key: (ours[key], official_verdicts[key])
        for key in sorted(ours)
        if ours[key] != official_verdicts[key]
    }
    assert differences == KNOWN_DIFFERENCES, (ours, official_verdicts)
