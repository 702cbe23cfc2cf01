"""LiveCodeBench grading fidelity: the same release rows and samples graded by LiveCodeBench's
own grader (``codegen_metrics`` from the ``nvidia-livecodebench`` 26.3 wheel, PyPI) and by the
plugin; every sample's verdict and first failing test agree, except the differences pinned in
``KNOWN_DIFFERENCES`` (each documented in docs/livecodebench.md).

The wheel's dependencies (model clients, datasets, pandas) are not needed to grade: only its
files are fetched (``pip download --no-deps``), once, into pytest's cache.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import kept_dir, read_results
from filelock import FileLock
from livecodebench_data import write_release, write_samples
from livecodebench_fidelity_samples import DRIVER, KNOWN_DIFFERENCES, ROWS, SAMPLES

from pytest_codegen.kinds.livecodebench_cases import decode_private

WHEEL = "nvidia-livecodebench==26.3"


@pytest.fixture(scope="session")
def official_grader(pytestconfig: pytest.Config) -> Path:
    """The wheel's files, unpacked once (under a lock: xdist workers wait for the first)."""
    root = kept_dir(pytestconfig, "nvidia-livecodebench-26.3")
    unpacked = root / "unpacked"
    with FileLock(str(root / "lock")):
        if not (root / "ready").exists():
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps"]
                + ["--only-binary=:all:", "-d", str(root / "wheel"), WHEEL],
                check=True,
                timeout=600,
            )
            (wheel,) = (root / "wheel").glob("*.whl")
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(unpacked)
            (root / "ready").write_text(WHEEL)
    return unpacked


def evaluation_sample(row: dict) -> dict:
    """LiveCodeBench's ``CodeGenerationProblem.get_evaluation_sample`` of a row."""
    cases = json.loads(row["public_test_cases"]) + decode_private(row["private_test_cases"], "")
    func_name = json.loads(row["metadata"]).get("func_name")
    return {
        "input_output": json.dumps(
            {
                "inputs": [c["input"] for c in cases],
                "outputs": [c["output"] for c in cases],
                "fn_name": func_name,
            }
        )
    }


def official_verdict(results: list) -> tuple[str, int | None]:
    """(verdict, first failing test) from LiveCodeBench's per-test codes: True pass,
    False/-2 wrong, -1 the global timeout, -3 a test's timeout, -4 an error."""
    for i, code in enumerate(results):
        if code is True:
            continue
        if code in (False, -2) and code is not True:
            return "failed", i
        if code in (-1, -3):
            return "timeout", i if code == -3 else None
        return "error", i
    return "passed", None


def our_verdict(record: dict) -> tuple[str, int | None]:
    outcome = record["outcome"]
    verdict = "error" if outcome in ("error", "crashed") else outcome
    failed = record.get("first_failure")
    index = int(failed["name"].split(" test ")[1].split(" of ")[0]) - 1 if failed else None
    return verdict, index


def test_every_verdict_is_livecodebench_own(pytester, official_grader, monkeypatch):
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(pytester.path / "codegen-cache"))
    by_task = {r["question_id"]: r for r in ROWS}
    tasks = sorted({task for task, _, _ in SAMPLES})
    generations = [[code for task, _, code in SAMPLES if task == t] for t in tasks]
    labels = {
        (t, i): label
        for t in tasks
        for i, label in enumerate(label for task, label, _ in SAMPLES if task == t)
    }
    job = pytester.path / "job.json"
    job.write_text(
        json.dumps(
            {"samples": [evaluation_sample(by_task[t]) for t in tasks], "generations": generations}
        )
    )
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(official_grader), str(job)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=900,
        cwd=pytester.path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULTS "))
    official = json.loads(line.removeprefix("RESULTS "))["results"]
    theirs = {
        labels[(t, i)] + f" ({t})": official_verdict(res)
        for n, t in enumerate(tasks)
        for i, res in enumerate(official[str(n)])
    }

    release = write_release(pytester.path / "test.jsonl", ROWS)
    replay = write_samples(
        pytester.path / "samples.jsonl", [(task, code) for task, _, code in SAMPLES]
    )
    pytester.runpytest_subprocess(
        str(release),
        f"--codegen-model=replay:{replay}",
        f"--codegen-samples={max(len(g) for g in generations)}",
        "--codegen-k=1",
        "--codegen-results=r.jsonl",
        timeout=900,
    )
    records = [r for r in read_results(pytester.path / "r.jsonl") if r["outcome"] != "missing"]
    ours = {
        labels[(r["task_id"], r["sample_index"])] + f" ({r['task_id']})": our_verdict(r)
        for r in records
    }
    assert set(ours) == set(theirs)
    differences = {
        key.rsplit(" (", 1)[0]: (ours[key], theirs[key])
        for key in sorted(ours)
        if ours[key] != theirs[key]
    }
    assert differences == KNOWN_DIFFERENCES, (ours, theirs)
