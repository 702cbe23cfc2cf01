"""``--codegen-resume``: a rerun grades only what the results file lacks (a killed worker or
host mid-run is in tests/test_remote_hosts.py)."""

from __future__ import annotations

import json

import pytest
from conftest import XDIST_MODES, read_results


def run_reference(pytester: pytest.Pytester, *args: str, results: str | None = "r.jsonl"):
    return pytester.runpytest_subprocess(
        "tiny.jsonl",
        "--codegen-model=reference",
        "--codegen-samples=2",
        "--codegen-k=1,2",
        *([f"--codegen-results={results}"] if results else []),
        "-p",
        "no:randomly",
        *args,
    )


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_resume_grades_what_the_file_lacks_and_reports_the_whole_run(pytester, tiny, xdist):
    run_reference(pytester).assert_outcomes(passed=6)
    path = pytester.path / "r.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    # Two samples never graded, and a record cut short as its writer was killed.
    path.write_text("".join(lines[:4]) + lines[4][:40])
    kept = {json.loads(line)["nodeid"] for line in lines[:4]}

    again = run_reference(pytester, "--codegen-resume", *xdist)
    again.assert_outcomes(passed=2)
    records = read_results(path)
    assert len(records) == 6
    assert len({r["nodeid"] for r in records}) == 6  # each sample once
    assert {r["nodeid"] for r in records[4:]}.isdisjoint(kept)
    again.stdout.fnmatch_lines(
        [
            "*tiny*(all)*3*6*6*1.000*1.000*",
            "resumed r.jsonl: 4 samples graded before were not graded again",
        ]
    )

    # Nothing left: nothing graded, and the status of the whole run (not "no tests ran").
    done = run_reference(pytester, "--codegen-resume", *xdist)
    assert done.ret == pytest.ExitCode.OK
    assert len(read_results(path)) == 6
    done.stdout.fnmatch_lines(["*tiny*(all)*3*6*6*1.000*1.000*"])


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_resume_without_a_file_starts_afresh(pytester, tiny, xdist):
    run_reference(pytester, "--codegen-resume", *xdist).assert_outcomes(passed=6)
    assert len(read_results(pytester.path / "r.jsonl")) == 6


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize(
    ("results", "model", "line"),
    [
        (None, "reference", "ERROR: --codegen-resume: needs --codegen-results PATH to resume"),
        (
            "r.jsonl",
            "validate",
            "ERROR: --codegen-resume: r.jsonl holds samples of model reference, not validate",
        ),
    ],
    ids=["no-results-file", "other-model"],
)
def test_resume_refuses_with_one_line(pytester, tiny, xdist, results, model, line):
    run_reference(pytester).assert_outcomes(passed=6)
    result = run_reference(
        pytester, "--codegen-resume", f"--codegen-model={model}", *xdist, results=results
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([line])
    assert len(read_results(pytester.path / "r.jsonl")) == 6  # nothing lost
