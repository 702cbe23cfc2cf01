"""A suite's fields are text: one holding a lone surrogate (a ``\\ud800`` escape), which UTF-8
cannot encode and so no id, prompt or test can be made of, is refused by every kind's loader
in one line naming the file, the line and the field (on the command line: exit 4, the same
with xdist; tests/test_usage_errors.py). A test's arguments are data and may hold one."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import TINY
from evalplus_data import HUMANEVAL
from livecodebench_data import PAIR_ROW, SUM_ROW

from pytest_codegen.kinds.evalplus import load_evalplus
from pytest_codegen.kinds.execcsn_rows import load_execcsn
from pytest_codegen.kinds.registry import builtin_kinds
from pytest_codegen.kinds.webapp1k import load_webapp1k
from pytest_codegen.problems import SuiteError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SAID = "holds a lone surrogate (\\ud800), which UTF-8 cannot encode"


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _apps_row(problem_id: int) -> dict:
    io = {"inputs": ["1\n"], "outputs": ["1\n"]}
    return {"problem_id": problem_id, "question": "Echo.", "input_output": json.dumps(io)}


# kind: (file name, its lines, the field of line 2 given a lone surrogate). Line 1 is blank
# where the loader would look for the language's toolchain on reading a row.
JSON_LINES = {
    "humaneval": ("tiny.jsonl", _rows(TINY)[:2], "task_id"),
    "evalplus": ("plus.jsonl", HUMANEVAL[:2], "canonical_solution"),
    "livecodebench": ("test.jsonl", [SUM_ROW, PAIR_ROW], "question_content"),
    "apps": ("apps.jsonl", [_apps_row(1), _apps_row(2)], "question"),
    "multipl-e": ("add.jsonl", [None, _rows(FIXTURES / "multipl_e" / "add.jsonl")[0]], "tests"),
    "humaneval-x": (
        "humaneval_cpp.jsonl",
        [None, _rows(FIXTURES / "humaneval_x" / "humaneval_cpp.jsonl")[0]],
        "prompt",
    ),
}


@pytest.mark.parametrize("kind", sorted(JSON_LINES))
def test_each_kind_refuses_a_lone_surrogate_naming_its_line_and_field(tmp_path, kind):
    name, rows, field = JSON_LINES[kind]
    rows = [rows[0], {**rows[1], field: rows[1][field] + "\ud800"}]
    path = tmp_path / name
    # json writes the surrogate as the escape \ud800, as another tool would.
    path.write_text("".join(json.dumps(row) + "\n" if row else "\n" for row in rows))
    with pytest.raises(SuiteError) as info:
        builtin_kinds().reading(path).load(path, "s")
    assert str(info.value) == f"{path}:2: field {field!r} {SAID}"


def test_exec_csn_refuses_a_lone_surrogate_naming_its_example_and_field(tmp_path):
    rows = json.loads((FIXTURES / "suites" / "execcsn-tiny.json").read_text(encoding="utf-8"))
    rows = [rows[0], {**rows[1], "masked_code": rows[1]["masked_code"] + "\udfff"}]
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(rows))
    with pytest.raises(SuiteError) as info:
        load_execcsn(path, "s")
    said = SAID.replace("ud800", "udfff")
    assert str(info.value) == f"{path}: example 1: field 'masked_code' {said}"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with pytest.raises(SuiteError) as info:
        load_execcsn(path, "s")
    assert str(info.value) == f"{path}: example 1 (line 2): field 'masked_code' {said}"


def test_webapp1k_refuses_a_file_name_that_is_not_utf8(tmp_path):
    # The file system's bytes \xff come back as the lone surrogate \udcff in the problem id.
    category = tmp_path / "suite" / "comments"
    category.mkdir(parents=True)
    test_code = (FIXTURES / "react" / "comments" / "commentBox.test.js").read_bytes()
    with open(os.fsencode(category) + b"/\xffbox.test.js", "wb") as fh:
        fh.write(test_code)
    with pytest.raises(SuiteError) as info:
        load_webapp1k(tmp_path / "suite", "s")
    assert str(info.value) == (
        f"{category}/\\udcffbox.test.js: the file name is not UTF-8 (the problem id)"
    )


def test_a_lone_surrogate_in_a_test_argument_is_data(tmp_path):
    # EvalPlus passes its inputs to the candidate as Python values: a str may hold one.
    row = {**HUMANEVAL[0], "base_input": [["\ud800", "x"]]}
    path = tmp_path / "plus.jsonl"
    path.write_text(json.dumps(row) + "\n")
    (problem,) = load_evalplus(path, "s")
    assert problem.extra["base_input"] == [["\ud800", "x"]]
