"""APPS through the same kind of grading: its rows recognised, stdin and call-based problems
graded in one sandbox per sample by APPS's comparison cascade, its first solution the
reference, plain and -n 2."""

from __future__ import annotations

import functools
import json
import sys
import types
from pathlib import Path

import pytest
from conftest import XDIST_MODES, read_results

from pytest_codegen.kinds.apps import same_result, same_stdout

SUM = "input()\nprint(sum(map(int, input().split())))\n"
TWICE = "def twice(xs):\n    return [2 * x for x in xs]\n"


def _row(problem_id, io, solutions, difficulty="interview", starter=""):
    return {
        "problem_id": problem_id,
        "question": f"Problem {problem_id}.",
        "solutions": json.dumps(solutions),
        "input_output": io if isinstance(io, str) else json.dumps(io),
        "difficulty": difficulty,
        "url": f"https://example.org/{problem_id}",
        "starter_code": starter,
    }


ROWS = [
    _row(
        4000,
        {"inputs": ["3\n1 2 3\n", "2\n10 20\n"], "outputs": ["6\n", "30\n"]},
        [SUM],
        difficulty="introductory",
    ),
    _row(
        4001,
        {"inputs": [[[1, 2]], [[5]]], "outputs": [[[2, 4]], [10]], "fn_name": "twice"},
        [TWICE],
        starter="def twice(xs):\n",
    ),
]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_apps_problems_graded_by_its_rules(pytester, xdist):
    (pytester.path / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    samples = [
        ("4000", SUM),
        ("4000", "input()\nprint('  ' + str(sum(map(int, input().split()))) + '\\n\\n')\n"),
        ("4000", "print(0)\n"),
        ("4001", TWICE),
        ("4001", "def twice(xs):\n    return tuple(xs)\n"),
    ]
    (pytester.path / "s.jsonl").write_text(
        "".join(json.dumps({"task_id": t, "solution": c}) + "\n" for t, c in samples)
    )
    pytester.runpytest_subprocess(
        "test.jsonl",
        "--codegen-model=replay:s.jsonl",
        "--codegen-samples=3",
        "--codegen-results=r.jsonl",
        *xdist,
        timeout=300,
    )
    records = {r["nodeid"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert {n: r["outcome"] for n, r in records.items() if r["outcome"] != "missing"} == {
        "test.jsonl::4000[s0]": "passed",
        "test.jsonl::4000[s1]": "passed",  # whitespace around the answer
        "test.jsonl::4000[s2]": "failed",
        "test.jsonl::4001[s0]": "passed",  # [2, 4] == the first of [[2, 4]]
        "test.jsonl::4001[s1]": "failed",
    }
    assert records["test.jsonl::4000[s2]"]["first_failure"]["name"] == "public test 1 of 2"
    assert records["test.jsonl::4000[s0]"]["mode"] == "apps"


def test_the_first_solution_is_the_reference(pytester):
    (pytester.path / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    result = pytester.runpytest_subprocess(
        "test.jsonl", "--codegen-model=validate", "--codegen-difficulty=introductory"
    )
    result.assert_outcomes(passed=1, deselected=1)


@pytest.mark.parametrize(
    ("got", "expected", "same"),
    [
        ("6\n", "6", True),
        ("1 2\n3 4\n", ["1 2", "3 4"], True),  # a list of lines
        ("\n6\n\n", "6\n", True),
        ("0.3333333\n", "0.333333333", True),  # numpy.allclose
        ("2 1\n4 3\n", "3 4\n1 2\n", True),  # sets of token sets: order ignored
        ("1.0001\n", "1.0\n", True),  # rounded to 3 places (APPS's last rule)
        ("1.01\n", "1.0\n", False),
        ("Yes\n", "No\n", False),
    ],
)
def test_stdout_compared_by_apps_cascade(got, expected, same):
    assert same_stdout(got, expected) is same


def test_results_compared_as_apps_compares_them():
    assert same_result([1, 2], [1, 2])
    assert same_result([1, 2], [[1, 2]])
    assert same_result([(1, 2)], [[[1, 2]]])
    assert not same_result([2, 1], [[1, 2]])


def test_code_contests_converted_as_the_docs_say_is_graded_as_apps(pytester):
    """docs/apps.md's converter, run on a row in CodeContests' form (its Hugging Face
    fields), writes a file that is graded as APPS, its Python 3 solution the reference."""
    page = (Path(__file__).parent.parent / "docs" / "apps.md").read_text(encoding="utf-8")
    converter = page.split("## CodeContests")[1].split("```python\n")[1].split("```")[0]
    row = {
        "name": "1548_A. Sum",
        "description": "Print the sum of the numbers on the second line.",
        "public_tests": {"input": ["3\n1 2 3\n"], "output": ["6\n"]},
        "private_tests": {"input": ["2\n10 20\n"], "output": ["30\n"]},
        "generated_tests": {"input": ["1\n-5\n"], "output": ["-5\n"]},
        "solutions": {"language": [2, 3], "solution": ["int main() {}", SUM]},
    }
    # The one thing not run here: the download; datasets.load_dataset gives this row.
    loader = types.ModuleType("datasets")
    loader.load_dataset = lambda name, split: [row]  # type: ignore[attr-defined]
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, "datasets", loader)
        patch.chdir(pytester.path)
        exec(compile(converter, "docs/apps.md", "exec"), {})
    [converted] = [json.loads(line) for line in (pytester.path / "code_contests-test.jsonl").open()]
    assert json.loads(converted["input_output"])["inputs"] == [
        "3\n1 2 3\n",
        "2\n10 20\n",
        "1\n-5\n",
    ]
    result = pytester.runpytest_subprocess(
        "code_contests-test.jsonl", "--codegen-model=reference", "--codegen-results=r.jsonl"
    )
    result.assert_outcomes(passed=1)
    [record] = read_results(pytester.path / "r.jsonl")
    assert (record["task_id"], record["nodeid"]) == (
        "1548_A. Sum",
        "code_contests-test.jsonl::1548_A._Sum[s0]",
    )


DEEP = functools.reduce(lambda inner, _: [inner], range(600), [])  # 601 lists, each in the next
MALFORMED = {
    # io of the row, then the one line its samples are quarantined with
    5000: ({"inputs": ["3\n1 2 3\n", "1\n5\n"], "outputs": ["6\n"]}, "2 inputs and 1 outputs"),
    5001: ({"inputs": ["3\n1 2 3\n"], "outputs": ["6\n", "5\n"]}, "1 inputs and 2 outputs"),
    5002: ({"inputs": ["3\n1 2 3\n"], "outputs": [6]}, "outputs[0] is not text or a list"),
    5003: ({"inputs": [["3", 1]], "outputs": ["6"]}, "inputs[0] is not text or a list"),
    5004: ({"inputs": [5], "outputs": [10], "fn_name": "twice"}, "inputs[0] is not a list of"),
    5005: ({"inputs": [[[1]]], "outputs": [[2]], "fn_name": 7}, "fn_name is not a name"),
    # Nested past what can be sent to the sample and compared (a failure blamed on the
    # sample, "check failed"), or past what json reads (a RecursionError's traceback).
    5006: ({"inputs": [[DEEP]], "outputs": [1], "fn_name": "twice"}, "inputs[0] nests lists"),
    5007: ({"inputs": [[[1]]], "outputs": [DEEP], "fn_name": "twice"}, "outputs[0] nests lists"),
    5008: (
        '{"inputs": [[' + "[" * 5000 + "]" * 5000 + ']], "outputs": [1], "fn_name": "twice"}',
        "input_output nests lists too deeply to be read",
    ),
}


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_malformed_test_cases_quarantine_the_problem(pytester, xdist):
    """A row whose input_output APPS's grader could not run (inputs and outputs of different
    lengths, a number where text goes, an argument list that is not a list) or that nests
    deeper than a sample can be sent it and it compared grades nothing:
    its samples are quarantined with one line naming the row and what is wrong, never
    graded on part of its tests nor an INTERNALERROR."""
    rows = [_row(i, io, [SUM]) for i, (io, _) in MALFORMED.items()]
    (pytester.path / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    pytester.runpytest_subprocess(
        "test.jsonl", "--codegen-model=reference", "--codegen-results=r.jsonl", *xdist
    )
    records = {int(r["task_id"]): r for r in read_results(pytester.path / "r.jsonl")}
    assert {i: r["outcome"] for i, r in records.items()} == dict.fromkeys(MALFORMED, "quarantined")
    for i, (_, why) in MALFORMED.items():
        assert records[i]["error"].startswith(f"{pytester.path / 'test.jsonl'}:{i - 4999}: ")
        assert why in records[i]["error"]


def graded_to_usage_error(pytester, rows, xdist):
    """Grade a file of ``rows`` with the reference: the run, which must stop with exit 4,
    and the ``ERROR:`` lines it wrote."""
    (pytester.path / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = pytester.runpytest_subprocess("test.jsonl", "--codegen-model=reference", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    return result, [line for line in result.stderr.lines if line.startswith("ERROR: ")]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_solutions_not_a_json_string_of_a_list_is_one_line_and_exit_4(pytester, xdist):
    """``solutions`` holds a JSON string of a list of programs; a list given as is, or a JSON
    object, stops the run in one line naming the file's line (it was an INTERNALERROR)."""
    for solutions in (["print(6)"], '{"0": "print(6)"}'):
        rows = [ROWS[0], dict(ROWS[1], solutions=solutions)]
        _, errors = graded_to_usage_error(pytester, rows, xdist)
        assert errors == [
            f"ERROR: {pytester.path / 'test.jsonl'}:2: "
            "solutions is not a JSON string of a list of programs"
        ]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_task_id_not_a_string_is_one_line_and_exit_4(pytester, xdist):
    """A row may name its problem by ``task_id`` instead of ``problem_id``; one that is not a
    string stops the run in one line naming the file's line (it was an INTERNALERROR)."""
    for task_id in (4002, ["4002"]):
        rows = [ROWS[0], dict(ROWS[1], task_id=task_id)]
        result, errors = graded_to_usage_error(pytester, rows, xdist)
        assert errors == [
            f"ERROR: {pytester.path / 'test.jsonl'}:2: missing or non-string field(s) task_id"
        ]
        assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_row_without_a_problem_id_is_one_line_and_exit_4(pytester, xdist):
    """A row with no problem_id (nor task_id), or one that is no id, stops the run in one
    line naming the file's line (it was graded as a problem named "None")."""
    without_id = {k: v for k, v in ROWS[1].items() if k != "problem_id"}
    for row in (without_id, dict(ROWS[1], problem_id=None), dict(ROWS[1], problem_id=[4001])):
        rows = [ROWS[0], row]
        _, errors = graded_to_usage_error(pytester, rows, xdist)
        assert errors == [
            f"ERROR: {pytester.path / 'test.jsonl'}:2: "
            "missing or non-string field(s) problem_id (a number or text)"
        ]


def test_the_prompt_is_apps_own_to_the_character(tmp_path):
    # APPS's eval/generate_gpt_codes.py: "\nQUESTION:\n" + question, "\n" + starter code when
    # there is one, the format line by the tests' fn_name, "\nANSWER:\n". A problem with
    # starter code but no fn_name is graded on stdin, and told so.
    from pytest_codegen.kinds.apps import load_apps

    call = {"inputs": [[1]], "outputs": [2], "fn_name": "twice"}
    stdin = {"inputs": ["1\n"], "outputs": ["2\n"]}
    rows = [
        {"problem_id": 1, "question": "Double it.", "input_output": json.dumps(call),
         "starter_code": "def twice(x):"},
        {"problem_id": 2, "question": "Double it.", "input_output": json.dumps(stdin),
         "starter_code": "class Solution:"},
        {"problem_id": 3, "question": "Double it.", "input_output": json.dumps(stdin)},
        {"problem_id": 4, "question": "Say \"fn_name\": \"x\".", "input_output": json.dumps(
            {"inputs": ['"fn_name": "x"\n'], "outputs": ["2\n"]})},
    ]  # fmt: skip
    path = tmp_path / "apps.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert [p.prompt for p in load_apps(path, "apps")] == [
        "\nQUESTION:\nDouble it.\ndef twice(x):\nUse Call-Based format\nANSWER:\n",
        "\nQUESTION:\nDouble it.\nclass Solution:\nUse Standard Input format\nANSWER:\n",
        "\nQUESTION:\nDouble it.\nUse Standard Input format\nANSWER:\n",
        '\nQUESTION:\nSay "fn_name": "x".\nUse Standard Input format\nANSWER:\n',
    ]
