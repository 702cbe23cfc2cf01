"""``--codegen-model=validate``: check a suite, with or without reference solutions."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, XDIST_MODES, read_results

from pytest_codegen.kinds.humaneval import HumanEvalKind
from pytest_codegen.kinds.registry import builtin_kinds
from pytest_codegen.kinds.webapp1k import WebApp1KKind
from pytest_codegen.outcomes import ERROR, FAILED, PASSED, Verdict, judge_empty_solution
from pytest_codegen.problems import MODE_JEST, MODE_PYTHON_CALL, Problem

REACT = ROOT / "benchmarks" / "react"


def python_problem(task_id: str, test: str, reference: str | None = None) -> dict:
    row = {
        "task_id": task_id,
        "prompt": 'def double(x):\n    """Twice x."""\n',
        "test": test,
        "entry_point": "double",
    }
    if reference is not None:
        row["canonical_solution"] = reference
    return row


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_python_suite_without_references(pytester, xdist):
    rows = [
        python_problem("v/sound", "def check(candidate):\n    assert candidate(2) == 4\n"),
        python_problem(
            "v/raises_on_none", "def check(candidate):\n    assert candidate(2) + 1 == 5\n"
        ),  # None + 1: rejected too
        python_problem("v/vacuous", "def check(candidate):\n    candidate(2)\n"),
        python_problem(
            "v/with_ref",
            "def check(candidate):\n    assert candidate(3) == 6\n",
            reference="    return 2 * x\n",
        ),
        # Its reference passes, but so does an empty body: the tests cannot fail.
        python_problem(
            "v/vacuous_with_ref", "def check(candidate):\n    candidate(3)\n", "    return 2 * x\n"
        ),
    ]
    (pytester.path / "v.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    def graded_with(model: str) -> tuple[pytest.RunResult, dict[str, str]]:
        result = pytester.runpytest_subprocess(
            "v.jsonl", f"--codegen-model={model}", f"--codegen-results={model}.jsonl", *xdist
        )
        records = read_results(pytester.path / f"{model}.jsonl")
        return result, {r["task_id"]: r["outcome"] for r in records}

    result, outcomes = graded_with("validate")
    assert outcomes == {
        "v/sound": "passed",
        "v/raises_on_none": "passed",
        "v/vacuous": "failed",
        "v/with_ref": "passed",
        "v/vacuous_with_ref": "failed",
    }
    result.stdout.fnmatch_lines(["failed: vacuous: every test passes with an empty solution"] * 2)
    result.stdout.fnmatch_lines(["v *5 *5 *3 *2 *0.600*"])
    # --codegen-model=empty grades the empty solution like any answer: it passes where the
    # tests accept it (the two vacuous problems), and fails everywhere else.
    result, outcomes = graded_with("empty")
    assert outcomes == {
        "v/sound": "failed",
        "v/raises_on_none": "failed",
        "v/vacuous": "passed",
        "v/with_ref": "failed",
        "v/vacuous_with_ref": "passed",
    }
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_react_suite_without_references(pytester):
    suite = pytester.mkdir("noref")
    shop = suite / "shop"
    shop.mkdir()
    sound = (REACT / "blogging" / "publishPost.test.js").read_text()
    (shop / "publishPost.test.js").write_text(sound)  # no publishPost.js next to it
    (shop / "vacuous.test.js").write_text(
        "import React from 'react';\nimport { render } from '@testing-library/react';\n"
        "import App from './vacuous';\n"
        "test('renders', () => { render(<App />); });\n"
        "test('still renders', () => { render(<App />); });\n"
    )
    (shop / "broken.test.js").write_text(
        "import React from 'react';\nimport axios from 'axios';\nimport App from './broken';\n"
        "test('uses axios', () => { expect(axios).toBeDefined(); });\n"
    )
    result = pytester.runpytest_subprocess(
        "noref", "--codegen-model=validate", "--codegen-results=r.jsonl", timeout=600
    )
    outcomes = {r["task_id"]: r["outcome"] for r in read_results(pytester.path / "r.jsonl")}
    assert outcomes == {
        "shop/publishPost": "passed",
        "shop/vacuous": "failed",
        "shop/broken": "error",
    }
    result.stdout.fnmatch_lines(
        [
            "error: the tests cannot run against an empty solution: *Cannot find module 'axios'*",
            "failed: vacuous: test 'renders' passes with an empty solution",
        ]
    )


def empty_solution(problem: Problem) -> str:
    return builtin_kinds().of(problem).empty_solution(problem)


def test_empty_solutions_by_mode():
    jest = Problem(
        id="a/b",
        suite="s",
        category="a",
        language="javascript",
        mode=MODE_JEST,
        prompt="",
        tests="",
    )
    assert "export default function App()" in empty_solution(jest)
    assert (
        empty_solution(
            Problem(
                id="p",
                suite="s",
                category="c",
                language="python",
                mode=MODE_PYTHON_CALL,
                prompt="",
                tests="",
            )
        )
        == "    pass\n"
    )


def test_judging_an_empty_solution():
    tests = [{"name": "a", "status": "failed"}, {"name": "b", "status": "passed"}]
    jest = WebApp1KKind.errors_reject_empty
    python = HumanEvalKind.errors_reject_empty
    assert judge_empty_solution(Verdict(FAILED, tests=tests[:1]), jest).outcome == PASSED
    partial = judge_empty_solution(Verdict(FAILED, tests=tests), jest)
    assert (partial.outcome, partial.message) == (
        FAILED,
        "vacuous: test 'b' passes with an empty solution",
    )
    assert judge_empty_solution(Verdict(ERROR, "boom"), jest).outcome == ERROR
    assert judge_empty_solution(Verdict(ERROR, "boom"), python).outcome == PASSED
