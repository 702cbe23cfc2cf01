"""HumanEval+/MBPP+ suite files: collected one problem per task, each sample graded on the
base and the plus inputs, the summary with EvalPlus's two scores (the same with -n 2), bad
files and broken canonical solutions said in one line, the answer key out of samples' reach.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import unprivileged
from conftest import INTERVAL_CELL, XDIST_MODES, read_results
from evalplus_data import expected_verdicts, grade_args, write_dataset
from test_html_report import dump_dom, needs_chromium, parse

from pytest_codegen.execution.host_cache import host_key


def _pass_at_1(verdicts: dict, which: int, prefix: str) -> float:
    """pass@1 of the tasks of ``prefix`` by the dataset's intended verdicts: base
    (``which`` 0) or base and plus (1)."""
    per_task: dict[str, list[bool]] = {}
    for (task_id, _), verdict in verdicts.items():
        if task_id.startswith(prefix):
            per_task.setdefault(task_id, []).append(all(verdict[: which + 1]))
    return sum(sum(v) / len(v) for v in per_task.values()) / len(per_task)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_base_and_plus_scores_in_the_summary(pytester, xdist):
    humaneval, mbpp, samples = write_dataset(pytester.path)
    result = pytester.runpytest_subprocess(
        *grade_args(humaneval, mbpp, samples), *xdist, timeout=600
    )
    verdicts = expected_verdicts()
    records = read_results(pytester.path / "r.jsonl")
    graded = {(r["task_id"], r["sample_index"]): r for r in records if r["outcome"] != "missing"}
    assert all(r["mode"] == "evalplus" for r in graded.values())
    # EvalPlus's per-input limits apply, not a per-sample limit calibrated on the reference.
    assert {(r["time_limit"]["source"], r["time_limit"]["why"]) for r in graded.values()} == {
        ("own", "EvalPlus's per-input limits apply instead")
    }
    assert {
        key: (r["base_outcome"] == "passed", r["plus_outcome"] == "passed")
        for key, r in graded.items()
    } == verdicts
    # A sample passes only if it passes both sets.
    assert {k: r["passed"] for k, r in graded.items()} == {k: all(v) for k, v in verdicts.items()}

    plus_he, base_he = (_pass_at_1(verdicts, i, "HumanEval/") for i in (1, 0))
    plus_mbpp, base_mbpp = (_pass_at_1(verdicts, i, "Mbpp/") for i in (1, 0))
    result.stdout.re_match_lines(
        [  # each pass@1, then its 95% interval
            rf"HumanEvalPlus-tiny +\(all\) +5 +35 .* {plus_he:.3f}{INTERVAL_CELL}$",
            rf"HumanEvalPlus-tiny \(base tests\) +\(all\) +5 +35 .* {base_he:.3f}{INTERVAL_CELL}$",
            rf"MbppPlus-tiny +\(all\) +3 +21 .* {plus_mbpp:.3f}{INTERVAL_CELL}$",
            rf"MbppPlus-tiny \(base tests\) +\(all\) +3 +21 .* {base_mbpp:.3f}{INTERVAL_CELL}$",
        ]
    )


def test_failure_lines_say_which_input_and_why(pytester):
    humaneval, _, samples = write_dataset(pytester.path)
    result = pytester.runpytest_subprocess(
        str(humaneval), f"--codegen-model=replay:{samples}", "--codegen-samples=7", timeout=600
    )
    result.stdout.fnmatch_lines_random(
        [
            "failed: plus input 1 of 3, add(1000000000000, 5): expected 1000000000005, "
            "got 1000000000000",
            "error: base input 1 of 3, add(1, 2): the code raised ValueError: no",
            "crashed: plus input 2 of 3, mean([[]0.1, 0.1, *]): *exit*3*",
            "timeout: loading the code for the base inputs: no result within the base set's 4 s",
            "timeout: plus input 1 of 4, triangle(7): no result within its limit of * s "
            "(4 x the canonical solution's * s, at least 1 s)",
            "timeout: plus input 2 of 4, triangle(1000): no result within its limit of 1 s *",
            "failed: base input 1 of 2, find_zero([[]-6.0, 11.0, -6.0, 1.0[]]): expected a zero "
            "of the polynomial (within 0.0001), got 0.0",
        ]
    )


def test_a_canonical_solution_that_fails_quarantines_its_problem(pytester):
    suite = pytester.path / "broken.jsonl"
    row = {
        "task_id": "HumanEval/9",
        "prompt": "def f(x):\n",
        "entry_point": "f",
        "canonical_solution": "    return 10 // x\n",
        "base_input": [[1], [2]],
        "plus_input": [[5], [0]],
        "atol": 0,
    }
    suite.write_text(json.dumps(row) + "\n")
    result = pytester.runpytest_subprocess(str(suite), "--codegen-model=reference")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*quarantined: broken: HumanEval/9: its canonical solution failed: "
            "ZeroDivisionError: integer division or modulo by zero (plus input 2, f(0))*"
        ]
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"plus_input": None}, "bad.jsonl:2: missing or malformed field(s) plus_input"),
        ({"base_input": [1, 2]}, "bad.jsonl:2: base_input[0] is not a list of arguments"),
        ({"atol": "small"}, "bad.jsonl:2: atol must be a number >= 0, not 'small'"),
        ({"task_id": "HumanEval/0"}, "bad.jsonl:2: duplicate task_id 'HumanEval/0'"),
    ],
    ids=["no-plus-input", "input-not-arguments", "bad-atol", "duplicate"],
)
@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_bad_evalplus_file_is_one_line(pytester, change, message, xdist):
    humaneval, _, _ = write_dataset(pytester.path)
    rows = [json.loads(line) for line in humaneval.read_text().splitlines()][:2]
    rows[1].update(change)
    rows[1] = {k: v for k, v in rows[1].items() if v is not None}
    bad = pytester.path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = pytester.runpytest_subprocess("--codegen-model=reference", str(bad), *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.re_match_lines([rf"ERROR: .*{re.escape(message)}$"])


# Passes only if it read the canonical solution's outputs where they are kept.
READ_ANSWERS = """\
    import os
    os.listdir({path!r})
    for directory, _, names in os.walk({path!r}):
        for name in names:
            if name.endswith(".json"):
                with open(os.path.join(directory, name)) as fh:
                    if fh.read(1):
                        return a + b
    raise RuntimeError("nothing read")
"""


@pytest.mark.parametrize(
    "privilege",
    [
        "root",
        pytest.param(
            "nobody",
            marks=pytest.mark.skipif(
                unprivileged.available() is not None, reason=str(unprivileged.available())
            ),
        ),
    ],
)
def test_the_canonical_outputs_are_out_of_samples_reach(monkeypatch, privilege):
    """As root (mount view, Landlock, a uid of its own, the files private to the grader's)
    and as nobody (Landlock alone: the sample has the grader's uid)."""
    # Kept where samples could otherwise read: in the Python installation they run with.
    cache = Path(tempfile.mkdtemp(prefix="evalplus-cache-", dir=sys.prefix))
    run = unprivileged.workdir()
    try:
        os.chmod(cache, 0o755)
        if privilege == "nobody":
            os.chown(cache, unprivileged.NOBODY, unprivileged.NOBODY)
        monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
        humaneval, _, _ = write_dataset(run)
        answers = cache / "pytest-codegen" / "evalplus-expected"
        peek = READ_ANSWERS.format(path=str(answers))
        (run / "peek.jsonl").write_text(
            json.dumps({"task_id": "HumanEval/0", "completion": peek})
            + "\n"
            + json.dumps({"task_id": "HumanEval/0", "completion": "    return a + b\n"})
            + "\n"
        )
        args = [
            f"{humaneval.name}::HumanEval_0",
            "--codegen-model=replay:peek.jsonl",
            "--codegen-samples=2",
            "--codegen-results=r.jsonl",
        ]
        if privilege == "nobody":
            for path in run.iterdir():
                os.chown(path, unprivileged.NOBODY, unprivileged.NOBODY)
            done = unprivileged.run_pytest(run, *args)
        else:
            env = {k: v for k, v in os.environ.items() if k != "PYTEST_CODEGEN_CACHE"}
            done = subprocess.run(
                [sys.executable, "-m", "pytest", "-p", "no:randomly", *args],
                cwd=run,
                env=env,
                capture_output=True,
                text=True,
            )
        records = read_results(run / "r.jsonl")
        assert [r["outcome"] for r in records] == ["error", "passed"], done.stdout[-3000:]
        assert "PermissionError" in records[0]["error"] or "nothing read" in records[0]["error"]
        # ... though they were there.
        kept = answers / host_key()  # (kept per host, see execution.host_cache)
        assert [p.suffix for p in kept.iterdir() if p.suffix == ".json"] == [".json"]
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(run, ignore_errors=True)


def test_evalplus_rows_are_found_in_a_directory(pytester):
    write_dataset(pytester.path)
    result = pytester.runpytest_subprocess("--codegen-model=reference", "--collect-only", "-q")
    ids = [line for line in result.stdout.lines if "::" in line]
    assert sorted({re.sub(r"\[s\d+\]$", "", i) for i in ids}) == [
        "HumanEvalPlus-tiny.jsonl::HumanEval_0",
        "HumanEvalPlus-tiny.jsonl::HumanEval_1",
        "HumanEvalPlus-tiny.jsonl::HumanEval_2",
        "HumanEvalPlus-tiny.jsonl::HumanEval_3",
        "HumanEvalPlus-tiny.jsonl::HumanEval_4",
        "MbppPlus-tiny.jsonl::Mbpp_2",
        "MbppPlus-tiny.jsonl::Mbpp_3",
        "MbppPlus-tiny.jsonl::Mbpp_787",
    ]


def test_base_rows_follow_their_suite_and_leave_other_suites_alone():
    from pytest_codegen.scoring.passk import summarize

    def rec(suite, task, index, outcome, base=None):
        row = {"suite": suite, "task_id": task, "category": suite, "sample_index": index}
        row["outcome"] = outcome
        if base is not None:
            row.update(base_outcome=base, plus_outcome=outcome)
        return row

    records = [
        rec("humaneval", "HumanEval/0", 0, "passed"),
        rec("plus", "HumanEval/0", 0, "failed", base="passed"),
        rec("plus", "HumanEval/0", 1, "error", base="error"),
        rec("plus", "HumanEval/1", 0, "missing"),
        rec("plus", "HumanEval/1", 1, "passed", base="passed"),
        rec("zeta", "t", 0, "failed"),
    ]
    rows = summarize(records, [1])
    shown = [(r.suite, r.category, r.pass_at_k[1], dict(r.counts)) for r in rows]
    assert shown == [
        ("humaneval", None, 1.0, {"passed": 1}),
        ("humaneval", "humaneval", 1.0, {"passed": 1}),
        ("plus", None, 0.5, {"failed": 1, "error": 1, "missing": 1, "passed": 1}),
        ("plus", "plus", 0.5, {"failed": 1, "error": 1, "missing": 1, "passed": 1}),
        ("plus (base tests)", None, 0.75, {"passed": 2, "error": 1, "missing": 1}),
        ("zeta", None, 0.0, {"failed": 1}),
        ("zeta", "zeta", 0.0, {"failed": 1}),
    ]
    # The HTML report's row for the base score leads to its suite's problems.
    assert rows[4].to_json()["base_of"] == "plus"
    assert "base_of" not in rows[2].to_json()


@needs_chromium
def test_the_html_report_shows_the_base_score_and_leads_to_its_suite(pytester):
    _, mbpp, samples = write_dataset(pytester.path)
    pytester.runpytest_subprocess(
        str(mbpp),
        f"--codegen-model=replay:{samples}",
        "--codegen-samples=4",
        "--codegen-k=1",
        "--codegen-html=report.html",
    )
    dom = parse(dump_dom((pytester.path / "report.html").as_uri(), pytester.path))
    rows = {
        r.attrs["data-suite"]: r
        for r in dom.find(id="summary-table").find_all("tr", class_="suite-row")
        if "data-suite" in r.attrs
    }
    base = rows["MbppPlus-tiny (base tests)"]
    assert base.attrs["title"] == "Show the problems of MbppPlus-tiny"
    score = float(base.find("td", data_k="1").attrs["data-value"])
    assert round(score, 3) == round(_pass_at_1(expected_verdicts(), 0, "Mbpp/"), 3)
    assert rows["MbppPlus-tiny"].attrs["title"] == "Show the problems of MbppPlus-tiny"
