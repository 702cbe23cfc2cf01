"""Benchmark kinds: a kind of problem the plugin does not know, added by a conftest.py
through ``pytest_codegen_add_kinds``, is collected, generated for, graded and scored like
the built-in ones, in one process and with xdist; and the built-in kinds read the files they
always read."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, TINY, XDIST_MODES, read_results, write_replay

from pytest_codegen.kinds.protocol import Kind
from pytest_codegen.kinds.registry import KindRegistry, builtin_kinds
from pytest_codegen.problems import Problem, SuiteError

# A kind of its own: programs judged on what they print, run in a real child process.
CONFTEST = """
import json
import subprocess
import sys

from pytest_codegen import Problem
from pytest_codegen.kinds.protocol import Kind
from pytest_codegen.outcomes import ERROR, FAILED, PASSED, TIMEOUT, Verdict


class PrintsKind(Kind):
    name = "prints"
    continues_prompt = False

    def claims(self, path, explicit):
        return path.name.endswith(".prints")

    def load(self, path, suite):
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        return [
            Problem(
                id=row["id"],
                suite=suite,
                category=row["category"],
                language="python",
                mode=self.name,
                prompt=row["prompt"],
                tests=row["expected"],
                reference=row["reference"],
            )
            for row in rows
        ]

    def empty_solution(self, problem):
        return "import sys\\n"

    def grade(self, problem, code, run):
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-c", code],
                capture_output=True,
                text=True,
                timeout=run.limits.timeout_s,
            )
        except subprocess.TimeoutExpired:
            return Verdict(TIMEOUT, "no answer in time", mode=self.name)
        if done.returncode:
            return Verdict(ERROR, done.stderr.strip().splitlines()[-1], mode=self.name)
        if done.stdout.strip() != problem.tests.strip():
            message = f"printed {done.stdout.strip()!r}, expected {problem.tests.strip()!r}"
            return Verdict(FAILED, message, stdout=done.stdout, mode=self.name)
        return Verdict(PASSED, stdout=done.stdout, mode=self.name)


def pytest_codegen_add_kinds(kinds, config):
    kinds.register(PrintsKind())
"""

ROWS = [
    {
        "id": "prints/answer",
        "category": "arithmetic",
        "prompt": "Print six times seven.",
        "expected": "42",
        "reference": "print(6 * 7)\n",
    },
    {
        "id": "prints/greeting",
        "category": "text",
        "prompt": "Print hello.",
        "expected": "hello",
        "reference": "print('hello')\n",
    },
]


@pytest.fixture
def prints_suite(pytester: pytest.Pytester):
    pytester.makeconftest(CONFTEST)
    path = pytester.path / "problems.prints"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_conftest_kind_is_collected_graded_and_scored(pytester, prints_suite, xdist):
    write_replay(
        pytester.path / "answers.jsonl",
        [
            {"task_id": "prints/answer", "solution": "print(6 * 7)\n"},
            {"task_id": "prints/answer", "solution": "print(41)\n"},
            {"task_id": "prints/greeting", "solution": "print('hello')\n"},
            {"task_id": "prints/greeting", "solution": "raise SystemExit('no')\n"},
        ],
    )
    result = pytester.runpytest_subprocess(
        "problems.prints",
        "--codegen-model=replay:answers.jsonl",
        "--codegen-samples=2",
        "--codegen-k=1,2",
        "--codegen-results=r.jsonl",
        *xdist,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-3000:]
    records = {r["nodeid"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert {n: r["outcome"] for n, r in records.items()} == {
        "problems.prints::prints_answer[s0]": "passed",
        "problems.prints::prints_answer[s1]": "failed",
        "problems.prints::prints_greeting[s0]": "passed",
        "problems.prints::prints_greeting[s1]": "error",
    }
    assert {r["mode"] for r in records.values()} == {"prints"}
    assert {r["category"] for r in records.values()} == {"arithmetic", "text"}
    assert records["problems.prints::prints_answer[s1]"]["error"] == ("printed '41', expected '42'")
    result.assert_outcomes(passed=2, failed=2)
    # Scored like any suite: half of the samples pass, every problem has a passing one.
    summary = result.stdout.str()
    assert "codegen: pass@k of replay:answers.jsonl" in summary
    (row,) = [line.split() for line in summary.splitlines() if " (all) " in line]
    header = next(line.split() for line in summary.splitlines() if line.startswith("suite "))
    assert row[:7] == ["problems.prints", "(all)", "2", "4", "2", "1", "1"]
    assert [row[header.index("pass@1")], row[header.index("pass@2")]] == ["0.500", "1.000"]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_conftest_kind_brings_its_reference_and_empty_answers(pytester, prints_suite, xdist):
    base = ["problems.prints", "--codegen-results=r.jsonl", *xdist]
    assert pytester.runpytest_subprocess(*base, "--codegen-model=reference").ret == 0
    assert {r["outcome"] for r in read_results(pytester.path / "r.jsonl")} == {"passed"}
    # Its empty answer, graded: nothing printed, so every test rejects it.
    result = pytester.runpytest_subprocess(*base, "--codegen-model=validate")
    assert result.ret == 0, result.stdout.str()[-2000:]
    result = pytester.runpytest_subprocess(*base, "--codegen-model=empty")
    records = read_results(pytester.path / "r.jsonl")
    assert [(r["outcome"], r["code"]) for r in records] == [("failed", "import sys\n")] * 2


def test_a_file_no_kind_claims_is_not_collected(pytester, prints_suite):
    (pytester.path / "notes.txt").write_text("nothing to grade\n")
    result = pytester.runpytest_subprocess(
        "problems.prints", "notes.txt", "--codegen-model=reference", "--co", "-q"
    )
    lines = [line for line in result.stdout.lines if "::" in line]
    assert lines == ["problems.prints::prints_answer[s0]", "problems.prints::prints_greeting[s0]"]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_problem_of_no_known_kind_is_one_clear_error(pytester, xdist):
    pytester.makeconftest(
        """
from pytest_codegen import Problem

def pytest_codegen_load_suite(path, config):
    if path.suffix == ".json":
        return [Problem(id="odd/1", suite="odd", category="c", language="python",
                        mode="no-such-kind", prompt="", tests="")]
"""
    )
    (pytester.path / "one.json").write_text("{}")
    result = pytester.runpytest_subprocess("one.json", "--codegen-model=reference", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *one.json: unknown grading mode 'no-such-kind' for odd/1"])


def test_built_in_kinds_read_the_files_they_always_read(tmp_path):
    kinds = builtin_kinds()
    evalplus = FIXTURES / "suites" / "evalplus-tiny.jsonl"
    execcsn = FIXTURES / "suites" / "execcsn-tiny.json"
    assert kinds.reading(TINY).name == "python-call"
    assert kinds.claiming(TINY, explicit=False).name == "python-call"  # sniffed from line 1
    if evalplus.exists():
        assert kinds.reading(evalplus).name == "evalplus"
    assert kinds.reading(execcsn).name == "python-program"
    assert kinds.claiming(execcsn, explicit=False) is None  # a .json only when named
    test_file = tmp_path / "blogging" / "addComment.test.js"
    test_file.parent.mkdir()
    test_file.write_text("")
    assert kinds.claiming(test_file, explicit=False).name == "jest"
    assert kinds.reading(tmp_path).name == "jest"  # a WebApp1K directory
    with pytest.raises(SuiteError, match=r"notes.txt: not a suite file"):
        kinds.reading(tmp_path / "notes.txt")


def test_a_kind_added_later_is_offered_files_first():
    class Lines(Kind):
        name = "lines"

        def claims(self, path, explicit):
            return path.name.endswith(".jsonl")

    kinds = builtin_kinds()
    kinds.register(Lines())
    assert kinds.reading(TINY).name == "lines"
    problem = Problem(id="p", suite="s", category="c", language="", mode="odd", prompt="", tests="")
    with pytest.raises(ValueError, match="unknown grading mode 'odd' for p"):
        kinds.of(problem)
    with pytest.raises(ValueError, match="needs a name"):
        KindRegistry().register(Kind())


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_kinds_preparation_runs_before_the_samples_call(pytester, prints_suite, xdist):
    """What a kind makes once per host (``Kind.prepare``: a language's libraries, built on
    first use) is made in the sample's setup, outside pytest-timeout's guard of its call;
    a preparation that fails is left to the call, which asks again."""
    conftest = pytester.path / "conftest.py"
    conftest.write_text(
        conftest.read_text()
        + """
import os

def _prepare(self, problem):
    with open("phases.txt", "a") as fh:
        fh.write(os.environ["PYTEST_CURRENT_TEST"].rsplit(" ", 1)[-1] + "\\n")
    if problem.id == "prints/greeting":
        raise RuntimeError("no toolchain here")

PrintsKind.prepare = _prepare
"""
    )
    result = pytester.runpytest_subprocess(
        "problems.prints", "--codegen-model=reference", "--codegen-results=r.jsonl", *xdist
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    assert (pytester.path / "phases.txt").read_text().split() == ["(setup)"] * 2
