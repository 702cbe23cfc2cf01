"""An APPS problem keeps where its row is in the test file, not its input_output: the row is
read again when the problem is graded, once for all its samples (a ``.gz`` file's problems
keep their input_output, as no offset reads it again cheaply), and a file changed since it
was read fails the problem in one line."""

from __future__ import annotations

import gzip
import json

import pytest
from conftest import XDIST_MODES, read_results
from test_apps import ROWS

from pytest_codegen.kinds import apps
from pytest_codegen.kinds.apps import AppsKind, load_apps
from pytest_codegen.problems import SuiteError


@pytest.fixture(autouse=True)
def _fresh_cases():
    apps._cases_at.cache_clear()
    apps._decoded_cases.cache_clear()


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_problem_keeps_its_rows_place_and_reads_its_tests_when_graded(tmp_path):
    data = _write(tmp_path / "test.jsonl", ROWS)
    problems = load_apps(data, "test")
    raw = data.read_bytes()
    for problem, row in zip(problems, ROWS, strict=True):
        assert problem.extra["input_output"] == ""
        offset, length = problem.extra["row_at"]
        assert json.loads(raw[offset : offset + length]) == row
        json.dumps(problem.extra)  # still JSON-safe
    stdin, call = (AppsKind().cases(p) for p in problems)
    assert stdin[0] is None
    assert [(c.given, c.expected) for c in stdin[1]] == [
        ("3\n1 2 3\n", "6\n"),
        ("2\n10 20\n", "30\n"),
    ]
    assert call[0] == "twice"
    assert [(c.given, c.expected) for c in call[1]] == [([[1, 2]], [[2, 4]]), ([[5]], [10])]


def test_a_problems_samples_read_its_row_once(tmp_path):
    problems = load_apps(_write(tmp_path / "test.jsonl", ROWS), "test")
    for problem in [problems[0]] * 3 + [problems[1]] * 3:
        AppsKind().cases(problem)
    assert apps._cases_at.cache_info().misses == 2


def test_a_file_changed_since_it_was_read_fails_the_problem_in_one_line(tmp_path):
    data = _write(tmp_path / "test.jsonl", ROWS)
    problems = load_apps(data, "test")
    _write(data, ROWS[::-1])  # the rows swapped
    with pytest.raises(SuiteError, match=r"test.jsonl:1: the file changed since it was read"):
        AppsKind().cases(problems[0])
    data.unlink()
    with pytest.raises(SuiteError, match=r"test.jsonl:2: cannot read the row again"):
        AppsKind().cases(problems[1])


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_gz_test_file_keeps_its_tests_and_grades(pytester, xdist):
    content = "".join(json.dumps(r) + "\n" for r in ROWS).encode()
    (pytester.path / "test.jsonl.gz").write_bytes(gzip.compress(content))
    problems = load_apps(pytester.path / "test.jsonl.gz", "test")
    assert problems[0].extra["row_at"] == []
    assert problems[0].extra["input_output"] == ROWS[0]["input_output"]
    result = pytester.runpytest_subprocess(
        "test.jsonl.gz", "--codegen-model=reference", "--codegen-results=r.jsonl", *xdist
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
    records = read_results(pytester.path / "r.jsonl")
    assert {r["task_id"]: r["tests_passed"] for r in records} == {"4000": 2, "4001": 2}
