"""A samples file (replay:PATH) checked against the suites it grades: a file of another suite
stops the run at start (exit 4), task ids that name no problem and samples past an explicit
--codegen-samples are one summary line each, and selecting part of the suites (-k, node ids,
shards) is no reason for any."""

from __future__ import annotations

import pytest
from conftest import FIXTURES, TINY, XDIST_MODES, read_results, write_replay

EVERYDAY_REPLAY = FIXTURES / "replays" / "everyday-pass.jsonl"
WRONG_SUITE = (
    "not one task_id of the file names a problem of suite {suite} "
    "(the file has 'everyday/parse_duration', {suite} has {first!r})"
)


def error_lines(result: pytest.RunResult) -> list[str]:
    return [line for line in result.stderr.lines if line.startswith("ERROR: ")]


@pytest.fixture
def suite_dir(pytester: pytest.Pytester):
    """The tiny suite in a directory, which only collection reads."""
    folder = pytester.mkdir("suites")
    (folder / "tiny.jsonl").write_text(TINY.read_text())
    return folder


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize(
    "where, suite, first",
    [
        ("--codegen-suite=humaneval", "humaneval", "HumanEval/0"),
        ("tiny.jsonl", "tiny", "tiny/add"),  # a suite file named: read at start
        ("suites", "tiny", "tiny/add"),  # found in a directory: known once collected
    ],
)
def test_a_samples_file_of_another_suite_is_a_usage_error(
    pytester, tiny, suite_dir, where, suite, first, xdist
):
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{EVERYDAY_REPLAY}",
        where,
        "--codegen-results=r.jsonl",
        "-p",
        "no:hypothesispytest",
        *xdist,
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    errors = error_lines(result)
    assert errors == [
        f"ERROR: --codegen-model replay:{EVERYDAY_REPLAY}: "
        + WRONG_SUITE.format(suite=suite, first=first)
    ], result.stderr.str()
    assert "no samples were graded" not in result.stdout.str()
    results = pytester.path / "r.jsonl"
    assert not results.exists() or read_results(results) == []  # nothing was graded


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("where", ["tiny.jsonl", "suites"])
def test_task_ids_that_name_no_problem_are_one_summary_line(
    pytester, tiny, suite_dir, where, xdist
):
    write_replay(
        pytester.path / "mixed.jsonl",
        [
            {"task_id": "tiny/add", "completion": "    return a + b\n"},
            *({"task_id": f"other/{i}", "completion": "    pass\n"} for i in range(5)),
        ],
    )
    result = pytester.runpytest_subprocess(
        "--codegen-model=replay:mixed.jsonl",
        where,
        "--codegen-results=r.jsonl",
        "-p",
        "no:hypothesispytest",
        *xdist,
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(
        [
            "replay:mixed.jsonl: 5 of its 6 task_ids name no problem of suite tiny and are not "
            "graded: 'other/0', 'other/1', 'other/2' and 2 more",
            "missing: 2 of 3 samples have no answer from replay:mixed.jsonl "
            "(skipped, left out of pass@k)",
        ]
    )
    assert result.stdout.str().count("task_ids name no problem") == 1
    outcomes = {r["task_id"]: r["outcome"] for r in read_results(pytester.path / "r.jsonl")}
    assert outcomes == {
        "tiny/add": "passed",
        "tiny/reverse_words": "missing",
        "tiny/Counter": "missing",
    }


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("where", ["tiny.jsonl", "suites"])
def test_samples_past_the_samples_graded_are_one_summary_line(
    pytester, tiny, suite_dir, where, xdist
):
    # Three samples a problem, the run grades the one --codegen-samples asks for: pass@1 is of
    # the first alone, where the file's own grader counts all three, and the summary says so.
    rows = [
        {"task_id": task, "completion": "    return a + b\n" if index == 0 else "    pass\n"}
        for task in ("tiny/add", "tiny/reverse_words", "tiny/Counter")
        for index in range(3)
    ]
    write_replay(pytester.path / "three.jsonl", rows)
    result = pytester.runpytest_subprocess(
        "--codegen-model=replay:three.jsonl",
        "--codegen-samples=1",
        where,
        "-p",
        "no:hypothesispytest",
        *xdist,
    )
    result.stdout.fnmatch_lines(
        [
            "replay:three.jsonl: 6 of its 9 samples are not graded: their sample_index is past "
            "the 1 graded per problem (--codegen-samples; the file has up to 3)"
        ]
    )
    assert result.stdout.str().count("are not graded") == 1
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out  # graded as before: no usage error


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize(
    "select",
    [
        ["tiny.jsonl", "-k", "reverse_words"],
        ["tiny.jsonl::tiny_reverse_words"],
        ["suites", "-k", "reverse_words"],
        ["tiny.jsonl", "--codegen-shard=1/2"],  # tiny/add is in shard 2 of 2
        ["suites", "--codegen-shard=1/2"],
    ],
    ids=["k", "node id", "k in a directory", "shard", "shard in a directory"],
)
def test_selecting_problems_the_file_lacks_is_no_error(pytester, tiny, suite_dir, select, xdist):
    write_replay(
        pytester.path / "add.jsonl", [{"task_id": "tiny/add", "completion": "    return a + b\n"}]
    )
    result = pytester.runpytest_subprocess(
        "--codegen-model=replay:add.jsonl",
        *select,
        "--codegen-results=r.jsonl",
        "-p",
        "no:hypothesispytest",
        *xdist,
    )
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.OK, out
    assert "ERROR" not in out and "name no problem" not in out
    records = read_results(pytester.path / "r.jsonl")
    assert records and {r["outcome"] for r in records} == {"missing"}
    assert "tiny/add" not in {r["task_id"] for r in records}
    # Every sample missing: the exit status stays 0, and the summary says so in words.
    result.stdout.fnmatch_lines(
        [
            f"missing: {len(records)} of {len(records)} samples have no answer from "
            "replay:add.jsonl (skipped, left out of pass@k)"
        ]
    )
