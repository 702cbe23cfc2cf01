"""A LiveCodeBench problem keeps where its row is in the release file, not its tests: the
row is read again when the problem is graded (a ``.gz`` file's problems keep their tests, as
no offset reads it again cheaply), and a file changed since it was read fails the problem in
one line."""

from __future__ import annotations

import gzip
import json

import pytest
from conftest import XDIST_MODES, read_results
from livecodebench_data import (
    PAIR_RIGHT,
    PAIR_ROW,
    SUM_RIGHT,
    SUM_ROW,
    write_release,
    write_samples,
)

from pytest_codegen.kinds import livecodebench_cases
from pytest_codegen.kinds.livecodebench import LiveCodeBenchKind, load_livecodebench
from pytest_codegen.problems import SuiteError


@pytest.fixture(autouse=True)
def _fresh_cases():
    livecodebench_cases.cases_at.cache_clear()
    livecodebench_cases.problem_cases.cache_clear()


def test_a_problem_keeps_its_rows_place_and_reads_its_tests_when_graded(tmp_path):
    release = write_release(tmp_path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    problems = load_livecodebench(release, "test")
    raw = release.read_bytes()
    for problem, row in zip(problems, (SUM_ROW, PAIR_ROW), strict=True):
        assert problem.extra["private_test_cases"] == problem.extra["public_test_cases"] == ""
        offset, length = problem.extra["row_at"]
        assert json.loads(raw[offset : offset + length]) == row
        json.dumps(problem.extra)  # still JSON-safe
    _, cases, _ = LiveCodeBenchKind().cases(problems[0])
    assert [(c.given, c.expected, c.hidden) for c in cases] == [
        ("3\n1 2 3\n", "6\n", False),
        ("2\n10 20\n", "30\n", True),
        ("1\n-5\n", "-5\n", True),
    ]


def test_a_file_changed_since_it_was_read_fails_the_problem_in_one_line(tmp_path):
    release = write_release(tmp_path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    problems = load_livecodebench(release, "test")
    write_release(release, [PAIR_ROW, SUM_ROW])  # the rows swapped
    with pytest.raises(SuiteError, match=r"test.jsonl:1: the file changed since it was read"):
        LiveCodeBenchKind().cases(problems[0])
    release.unlink()
    with pytest.raises(SuiteError, match=r"test.jsonl:2: cannot read the row again"):
        LiveCodeBenchKind().cases(problems[1])


def _graded_right(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """A run replaying a right answer to each problem, its records in r.jsonl."""
    replay = write_samples(
        pytester.path / "samples.jsonl", [("abc001_a", SUM_RIGHT), ("1234", PAIR_RIGHT)]
    )
    return pytester.runpytest_subprocess(
        *args,
        f"--codegen-model=replay:{replay}",
        "--codegen-samples=1",
        "--codegen-results=r.jsonl",
    )


def test_a_gz_release_file_keeps_its_tests_and_grades(pytester):
    content = "".join(json.dumps(r) + "\n" for r in (SUM_ROW, PAIR_ROW)).encode()
    (pytester.path / "test.jsonl.gz").write_bytes(gzip.compress(content))
    problems = load_livecodebench(pytester.path / "test.jsonl.gz", "test")
    assert problems[0].extra["row_at"] == []
    assert problems[0].extra["private_test_cases"] == SUM_ROW["private_test_cases"]
    result = _graded_right(pytester, "test.jsonl.gz")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
    records = read_results(pytester.path / "r.jsonl")
    assert {r["task_id"]: r["tests_passed"] for r in records} == {"abc001_a": 3, "1234": 3}


def test_a_problem_is_functional_by_its_func_name_not_a_cases_testtype(tmp_path):
    """LiveCodeBench's run_test runs a problem without a func_name on stdin whatever its
    cases' testtype says: such a case's input is the program's stdin, not JSON arguments."""
    case = {"input": "1\n2", "output": "3", "testtype": "functional"}
    stdin_row = dict(SUM_ROW, public_test_cases=json.dumps([case]), private_test_cases="")
    problems = load_livecodebench(write_release(tmp_path / "test.jsonl", [stdin_row]), "test")
    func_name, cases, rules = LiveCodeBenchKind().cases(problems[0])
    assert func_name is None
    assert [(c.given, c.expected) for c in cases] == [("1\n2", "3")]
    assert rules.same("3\n", cases[0].expected)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_problem_without_test_cases_is_quarantined_not_passed(pytester, xdist):
    """A row whose public and hidden test lists are both empty would pass any program: its
    samples are quarantined with one line naming the row."""
    empty = dict(SUM_ROW, public_test_cases="[]", private_test_cases="")
    write_release(pytester.path / "test.jsonl", [PAIR_ROW, empty])
    result = _graded_right(pytester, "test.jsonl", *xdist)
    records = {r["task_id"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert {t: r["outcome"] for t, r in records.items()} == {
        "1234": "passed",
        "abc001_a": "quarantined",
    }
    assert records["abc001_a"]["error"] == (
        f"{pytester.path / 'test.jsonl'}:2: public_test_cases and private_test_cases are empty"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_test_data_nested_too_deeply_quarantines_its_problem_in_one_line(pytester, xdist):
    """Arguments or an expected value nested past what can be sent to the sample and
    compared failed every sample as "check failed"; test data nested past what json reads
    was a RecursionError's traceback. Each now quarantines its problem in one line."""
    deep = "[" * 600 + "]" * 600
    deeper = "[" * 5000 + "]" * 5000
    rows = [
        dict(PAIR_ROW, question_id=f"d{i}", public_test_cases=public, private_test_cases="")
        for i, public in enumerate(
            [
                json.dumps([{"input": f"{deep}\n9", "output": "[0, 1]", "testtype": "functional"}]),
                json.dumps([{"input": "[2, 7]\n9", "output": deep, "testtype": "functional"}]),
                json.dumps([{"input": "[2, 7]\n9", "output": deeper, "testtype": "functional"}]),
                deeper,
            ]
        )
    ]
    write_release(pytester.path / "test.jsonl", [PAIR_ROW, *rows])
    replay = write_samples(
        pytester.path / "samples.jsonl", [(t, PAIR_RIGHT) for t in ("1234", "d0", "d1", "d2", "d3")]
    )
    result = pytester.runpytest_subprocess(
        "test.jsonl",
        f"--codegen-model=replay:{replay}",
        "--codegen-samples=1",
        "--codegen-results=r.jsonl",
        *xdist,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-2000:]
    records = {r["task_id"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert {t: r["outcome"] for t, r in records.items()} == {
        "1234": "passed",
        **{f"d{i}": "quarantined" for i in range(4)},
    }
    where = pytester.path / "test.jsonl"
    nested = "a functional test case nests lists or dicts more than 100 deep"
    assert [records[f"d{i}"]["error"] for i in range(3)] == [
        f"{where}:{line}: {nested}" for line in (2, 3, 4)
    ]
    assert records["d3"]["error"].startswith(f"{where}:5: public_test_cases is not JSON (")
