"""LiveCodeBench release files: recognised by their rows, task ids the question ids, stdin
programs and LeetCode methods graded on public then hidden tests by LiveCodeBench's rules,
the first failing test in the record (the same with -n 2), raw answers' code its last fenced
block, and hidden tests unpickled by an unpickler that runs nothing."""

from __future__ import annotations

import base64
import json
import pickle
import zlib

import pytest
from conftest import XDIST_MODES, read_results
from livecodebench_data import (
    PAIR_RIGHT,
    PAIR_ROW,
    SUM_POSITIVE_ONLY,
    SUM_RIGHT,
    SUM_ROW,
    write_release,
    write_samples,
)

from pytest_codegen.execution.extract import ExtractionError
from pytest_codegen.kinds.livecodebench import last_fenced_block, same_result, same_stdout
from pytest_codegen.kinds.livecodebench_cases import decode_private
from pytest_codegen.problems import SuiteError

PAIR_WRONG_ON_HIDDEN = (
    "class Solution:\n    def twoSum(self, nums, target):\n        return [0, 1]\n"
)
SUM_RAISES = "n = int(input())\nraise ValueError('no')\n"
SUM_SLOW_ON_HIDDEN = (
    "import time\nn = int(input())\nxs = list(map(int, input().split()))\n"
    "if n == 1:\n    time.sleep(60)\nprint(sum(xs))\n"
)


def _grade(pytester, samples, xdist, *extra, form="solution"):
    release = write_release(pytester.path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    replay = write_samples(pytester.path / "samples.jsonl", samples, form=form)
    per_task = max(sum(t == task for t, _ in samples) for task, _ in samples)
    result = pytester.runpytest_subprocess(
        str(release),
        f"--codegen-model=replay:{replay}",
        f"--codegen-samples={per_task}",
        "--codegen-k=1",
        "--codegen-results=r.jsonl",
        *xdist,
        *extra,
        timeout=300,
    )
    return result, {r["nodeid"]: r for r in read_results(pytester.path / "r.jsonl")}


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_programs_and_methods_graded_on_public_then_hidden_tests(pytester, xdist):
    samples = [
        ("abc001_a", SUM_RIGHT),
        ("abc001_a", SUM_POSITIVE_ONLY),
        ("abc001_a", SUM_RAISES),
        ("abc001_a", SUM_SLOW_ON_HIDDEN),
        ("1234", PAIR_RIGHT),
        ("1234", PAIR_WRONG_ON_HIDDEN),
    ]
    result, records = _grade(pytester, samples, xdist)
    outcomes = {node: r["outcome"] for node, r in records.items() if r["outcome"] != "missing"}
    assert outcomes == {
        "test.jsonl::abc001_a[s0]": "passed",
        "test.jsonl::abc001_a[s1]": "failed",
        "test.jsonl::abc001_a[s2]": "error",
        "test.jsonl::abc001_a[s3]": "timeout",
        "test.jsonl::1234[s0]": "passed",  # a tuple compared as a list
        "test.jsonl::1234[s1]": "failed",
    }
    wrong = records["test.jsonl::abc001_a[s1]"]
    assert wrong["first_failure"] == {
        "name": "hidden test 3 of 3",
        "status": "failed",
        "input": "1\n-5\n",
        "expected": "-5\n",
        "got": "5\n",
    }
    assert wrong["tests_passed"] == 2
    assert records["test.jsonl::abc001_a[s2]"]["first_failure"]["name"] == "public test 1 of 3"
    assert "ValueError: no" in records["test.jsonl::abc001_a[s2]"]["first_failure"]["error"]
    slow = records["test.jsonl::abc001_a[s3]"]
    assert slow["first_failure"]["name"] == "hidden test 3 of 3"
    assert "LiveCodeBench's 6 s per test" in result.stdout.str()
    assert records["test.jsonl::1234[s1]"]["first_failure"]["got"] == "[0, 1]"
    assert records["test.jsonl::1234[s0]"]["mode"] == "livecodebench"


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_raw_answers_graded_on_their_last_fenced_block(pytester, xdist):
    answer = "First try:\n```python\nprint(0)\n```\nBetter:\n```python\n" + SUM_RIGHT + "```\nDone."
    samples = [
        ("abc001_a", answer),
        ("abc001_a", "```python\nprint(6)\n"),
        ("1234", "```\n" + PAIR_RIGHT + "```"),
    ]
    _, records = _grade(pytester, samples, xdist, form="completion")
    assert records["test.jsonl::abc001_a[s0]"]["code_policy"] == "extract"
    assert records["test.jsonl::abc001_a[s0]"]["outcome"] == "passed"
    assert records["test.jsonl::abc001_a[s1]"]["outcome"] == "unextractable"
    assert records["test.jsonl::1234[s0]"]["outcome"] == "passed"


def test_a_malformed_row_is_one_line_naming_the_file_and_line(pytester):
    bad = dict(SUM_ROW, public_test_cases=7)
    release = write_release(pytester.path / "test.jsonl", [PAIR_ROW, bad])
    result = pytester.runpytest_subprocess(str(release), "--codegen-model=reference")
    said = result.stdout.str() + result.stderr.str()
    assert "test.jsonl:2: missing or non-string field(s) public_test_cases" in said
    assert result.ret != 0


def test_last_fenced_block_as_livecodebench_takes_it():
    assert last_fenced_block("a\n```python\nx = 1\n```\n```py\ny = 2\n```\n") == "y = 2"
    with pytest.raises(ExtractionError):
        last_fenced_block("```python\nprint(1)")
    assert last_fenced_block("print(1)") is None  # bare code: the plugin's extraction


@pytest.mark.parametrize(
    ("got", "expected", "same"),
    [
        ("6\n", "6", True),
        ("  1 2  \n3\n\n", "1 2\n3", True),  # stripped, and each line stripped
        ("1.50 2\n", "1.5 2.0", True),  # tokens as Decimals
        ("1.5000001\n", "1.5", False),  # no tolerance
        ("1  2\n", "1 2", True),
        ("1\n2\n", "1 2", False),  # as many lines
        ("Yes\n", "yes", False),
        ("nan\n", "nan", True),  # equal as text first
    ],
)
def test_stdout_compared_by_livecodebench_rule(got, expected, same):
    assert same_stdout(got, expected) is same


def test_results_compared_with_equality_on_json_values():
    assert same_result([1, 2], [1, 2])
    assert same_result(1.0, 1)
    assert not same_result([1, 2], [2, 1])


class _Boom:
    def __reduce__(self):
        return (exec, ("open('pwned', 'w').write('x')",))


def test_a_pickle_that_would_run_code_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blob = base64.b64encode(zlib.compress(pickle.dumps(_Boom()))).decode()
    with pytest.raises(SuiteError, match=r"x\.jsonl:3: .*refused to load builtins\.exec"):
        decode_private(blob, "x.jsonl:3")
    assert not (tmp_path / "pwned").exists()


def test_hidden_tests_decoded_from_json_or_the_packed_pickle():
    cases = [{"input": "1\n", "output": "1\n", "testtype": "stdin"}]
    assert decode_private(json.dumps(cases), "f:1") == cases
    packed = base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases)))).decode()
    assert decode_private(packed, "f:1") == cases
    with pytest.raises(SuiteError, match="f:1: private_test_cases is neither JSON"):
        decode_private(packed[: len(packed) // 2], "f:1")


LATER_ROW = dict(
    SUM_ROW, question_id="abc300_c", contest_date="2024-06-01T00:00:00", difficulty="hard"
)
ALL_RIGHT = [("abc001_a", SUM_RIGHT), ("1234", PAIR_RIGHT), ("abc300_c", SUM_RIGHT)]


def _selected(pytester, xdist, *args) -> set[str]:
    """Node ids graded from release files v1 (test.jsonl) and v2 (test2.jsonl)."""
    write_release(pytester.path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    write_release(pytester.path / "test2.jsonl", [LATER_ROW])
    replay = write_samples(pytester.path / "samples.jsonl", ALL_RIGHT)
    results = pytester.path / "r.jsonl"
    results.unlink(missing_ok=True)
    result = pytester.runpytest_subprocess(
        *(args or ("test.jsonl", "test2.jsonl")),
        f"--codegen-model=replay:{replay}",
        "--codegen-results=r.jsonl",
        "--codegen-samples=1",
        *xdist,
        timeout=300,
    )
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)
    return {r["nodeid"] for r in read_results(results)} if results.exists() else set()


FIRST, PAIR, LATER = "test.jsonl::abc001_a[s0]", "test.jsonl::1234[s0]", "test2.jsonl::abc300_c[s0]"


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--codegen-contest-after=2024-02-01"], {PAIR, LATER}),
        (["--codegen-contest-after=2024-03-02"], {PAIR, LATER}),  # on the day counts
        (["--codegen-contest-before=2024-03-02"], {FIRST}),
        (["--codegen-release=v1"], {FIRST, PAIR}),
        (["--codegen-release=release_v2"], {FIRST, PAIR, LATER}),
        (["--codegen-platform=leetcode"], {PAIR}),
        (["--codegen-platform=atcoder", "--codegen-difficulty=hard"], {LATER}),
        (["--codegen-contest-after=2024-02-01", "-k", "abc"], {LATER}),
    ],
    ids=["after", "after-same-day", "before", "v1", "v2", "platform", "two-facets", "with-k"],
)
def test_selection_by_date_release_platform_and_difficulty(pytester, xdist, args, expected):
    assert _selected(pytester, xdist, "test.jsonl", "test2.jsonl", *args) == expected


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_selection_with_node_ids_and_shards(pytester, xdist):
    after = "--codegen-contest-after=2024-02-01"
    assert _selected(pytester, xdist, "test.jsonl::1234", "test2.jsonl", after) == {PAIR, LATER}
    assert _selected(pytester, xdist, "test.jsonl::abc001_a", after) == set()
    shards = [
        _selected(pytester, xdist, "test.jsonl", "test2.jsonl", after, f"--codegen-shard={i}/2")
        for i in (1, 2)
    ]
    assert shards[0] | shards[1] == {PAIR, LATER}
    assert not shards[0] & shards[1]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_release_the_files_given_do_not_hold_is_one_line(pytester, xdist):
    # v3 of test.jsonl and test2.jsonl graded v1 and v2 as v3, without a word, where the
    # named suite refuses a release its files do not hold.
    write_release(pytester.path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    write_release(pytester.path / "test2.jsonl", [LATER_ROW])
    args = ["test.jsonl", "test2.jsonl", "--codegen-model=reference", "--codegen-results=r.jsonl"]
    result = pytester.runpytest_subprocess(*args, "--codegen-release=v3", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if line.strip()] == [
        "ERROR: --codegen-release: v3 is not a release of the suite files given (the latest"
        " release they hold is v2)"
    ]
    assert not (pytester.path / "r.jsonl").exists()
    # The release they hold is graded.
    held = pytester.runpytest_subprocess(*args, "--codegen-release=v2", *xdist)
    assert held.ret == pytest.ExitCode.OK
    assert len(read_results(pytester.path / "r.jsonl")) == 30


def test_a_bad_date_or_release_is_one_line(pytester):
    write_release(pytester.path / "test.jsonl", [SUM_ROW])
    for flag, said in (
        ("--codegen-contest-after=last May", "must be an ISO date such as 2024-09-01"),
        ("--codegen-release=5x", "must be a release such as v5"),
    ):
        result = pytester.runpytest_subprocess("test.jsonl", "--codegen-model=reference", flag)
        assert said in result.stderr.str()
        assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_reference_is_missing_empty_fails_and_validate_passes_every_problem(pytester):
    write_release(pytester.path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    seen = {}
    for model in ("reference", "empty", "validate"):
        pytester.runpytest_subprocess(
            "test.jsonl",
            f"--codegen-model={model}",
            f"--codegen-results={model}.jsonl",
            "--codegen-samples=1",
        )
        seen[model] = sorted(r["outcome"] for r in read_results(pytester.path / f"{model}.jsonl"))
    assert seen == {
        "reference": ["missing", "missing"],
        "empty": ["failed", "failed"],
        "validate": ["passed", "passed"],
    }


def test_prompts_are_livecodebench_own(tmp_path):
    from pytest_codegen.generation.prompts import build_prompt
    from pytest_codegen.kinds.livecodebench import (
        SYSTEM_MESSAGE,
        LiveCodeBenchKind,
        load_livecodebench,
    )

    release = write_release(tmp_path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    stdin_problem, leetcode_problem = load_livecodebench(release, "test")
    kind = LiveCodeBenchKind()
    prompt = build_prompt(stdin_problem, None, None, kind)
    assert prompt.system == SYSTEM_MESSAGE
    assert prompt.text.startswith("### Question:\nSolve problem abc001_a.\n\n### Format: Read the")
    assert prompt.text.endswith(
        "```python\n# YOUR CODE HERE\n```\n\n"
        "### Answer: (use the provided format with backticks)\n\n"
    )
    assert build_prompt(stdin_problem, "be terse", None, kind).system == "be terse"
    text = build_prompt(leetcode_problem, None, None, kind).text
    assert "### Format: You will use the following starter code" in text
    assert "```python\nclass Solution:\n    def twoSum(self" in text


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_eval_all_output_file_is_replayed_as_it_is(pytester, xdist):
    write_release(pytester.path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    # As LiveCodeBench writes it: its raw outputs, the code it graded, its grades.
    (pytester.path / "model_eval_all.json").write_text(
        json.dumps(
            [
                {
                    "question_id": "abc001_a",
                    "output_list": ["```python\n" + SUM_RIGHT + "```", "print(0)"],
                    "code_list": [SUM_RIGHT, ""],
                    "graded_list": [True, False],
                    "pass@1": 0.5,
                },
                {"question_id": "1234", "code_list": [PAIR_RIGHT], "graded_list": [True]},
            ]
        )
    )
    pytester.runpytest_subprocess(
        "test.jsonl",
        "--codegen-model=replay:model_eval_all.json",
        "--codegen-samples=2",
        "--codegen-results=r.jsonl",
        *xdist,
        timeout=300,
    )
    outcomes = {r["nodeid"]: r["outcome"] for r in read_results(pytester.path / "r.jsonl")}
    assert outcomes == {
        "test.jsonl::abc001_a[s0]": "passed",
        "test.jsonl::abc001_a[s1]": "failed",  # empty code: prints nothing
        "test.jsonl::1234[s0]": "passed",
        "test.jsonl::1234[s1]": "missing",
    }


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_eval_all_file_sets_the_samples_of_each_question(pytester, xdist):
    # LiveCodeBench grades each question's code_list whole: without --codegen-samples, each
    # question gets as many samples as its list holds, not the kind's default 10 (which left
    # 17 of 20 samples missing here), and pass@1 is of those.
    write_release(pytester.path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    (pytester.path / "model_eval_all.json").write_text(
        json.dumps(
            [
                {"question_id": "abc001_a", "code_list": [SUM_RIGHT, ""]},
                {"question_id": "1234", "code_list": [PAIR_RIGHT]},
            ]
        )
    )
    result = pytester.runpytest_subprocess(
        "test.jsonl",
        "--codegen-model=replay:model_eval_all.json",
        "--codegen-results=r.jsonl",
        *xdist,
        timeout=300,
    )
    outcomes = {r["nodeid"]: r["outcome"] for r in read_results(pytester.path / "r.jsonl")}
    assert outcomes == {
        "test.jsonl::abc001_a[s0]": "passed",
        "test.jsonl::abc001_a[s1]": "failed",
        "test.jsonl::1234[s0]": "passed",
    }
    assert "missing" not in result.stdout.str()
    assert "samples a problem" not in result.stdout.str()  # not LiveCodeBench's default 10


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_eval_all_file_naming_a_question_twice_stops_the_run(pytester, xdist):
    # The second entry's samples replaced the first's, and the run graded them unsaid.
    write_release(pytester.path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    entries = [
        {"question_id": "abc001_a", "code_list": [SUM_RIGHT]},
        {"question_id": "1234", "code_list": [PAIR_RIGHT]},
        {"question_id": "abc001_a", "code_list": ["print(0)"]},
    ]
    (pytester.path / "model_eval_all.json").write_text(json.dumps(entries))
    result = pytester.runpytest_subprocess(
        "test.jsonl", "--codegen-model=replay:model_eval_all.json", *xdist, timeout=300
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: *model_eval_all.json: entry 2: duplicate question_id 'abc001_a' (entry 0)"]
    )
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_hidden_tests_are_decoded_only_when_graded(pytester):
    broken = dict(SUM_ROW, private_test_cases="bm90IGEgcGlja2xl")  # base64 of "not a pickle"
    write_release(pytester.path / "test.jsonl", [broken, PAIR_ROW])
    replay = write_samples(pytester.path / "s.jsonl", [("abc001_a", SUM_RIGHT)])
    # Collecting reads no hidden test: the broken row is collected like the others.
    collected = pytester.runpytest_subprocess(
        "test.jsonl", "--codegen-model=empty", "--codegen-samples=1", "--co"
    )
    collected.stdout.fnmatch_lines(["*2 tests collected*"])
    pytester.runpytest_subprocess(
        "test.jsonl::abc001_a",
        f"--codegen-model=replay:{replay}",
        "--codegen-results=r.jsonl",
        "--codegen-samples=1",
    )
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] == "quarantined"
    assert (
        "test.jsonl:1: private_test_cases is neither JSON nor base64+zlib+pickle"
        in (record["error"])
    )


def test_hidden_tests_that_inflate_past_the_bound_are_refused(monkeypatch):
    from pytest_codegen.kinds import livecodebench_cases

    monkeypatch.setattr(livecodebench_cases, "MAX_DECOMPRESSED_BYTES", 1 << 16)
    bomb = base64.b64encode(zlib.compress(b"\0" * (1 << 20))).decode()
    with pytest.raises(SuiteError, match=r"f:2: private_test_cases decompress to more than"):
        decode_private(bomb, "f:2")
