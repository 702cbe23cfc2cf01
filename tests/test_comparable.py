"""Every results file states what makes runs comparable; --codegen-merge and
--codegen-baseline refuse results that differ in it, with one line saying what differs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import XDIST_MODES, read_results, write_replay
from test_shards import write_suite

from pytest_codegen.reporting.comparable import first_difference, identity

REPLAY = ["--codegen-model=replay:replay.jsonl", "--codegen-samples=2"]


@pytest.fixture
def suite(pytester: pytest.Pytester) -> str:
    """test_shards' suite of 9 problems, 2 answers each; every third answer is wrong."""
    answers = {(i, s): i if (i + s) % 3 else i + 1 for i in range(9) for s in range(2)}
    write_replay(
        pytester.path / "replay.jsonl",
        [
            {"task_id": f"gen/f{i}", "sample_index": s, "completion": f"    return x + {n}\n"}
            for (i, s), n in answers.items()
        ],
    )
    return str(write_suite(pytester.path / "gen.jsonl", 9))


def rewrite(path: Path, change) -> None:
    """Rewrite each record of a results file with ``change(record)``."""
    rows = [change(r) for r in read_results(path)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def one_error(result: pytest.RunResult) -> str:
    """The run's only stderr line, which must be a usage error."""
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    (line,) = [ln for ln in result.stderr.lines if ln.strip()]
    assert line.startswith("ERROR: ")
    return line


@pytest.mark.parametrize(
    ("first", "second", "says"),
    [
        pytest.param(
            ["--codegen-temperature=0.2"],
            ["--codegen-temperature=0.8"],
            "model parameters (extract=auto samples=2 temperature=0.8 vs extract=auto samples=2"
            " temperature=0.2 in s1.jsonl)",
            id="parameters",
        ),
        pytest.param(
            [],
            ["--codegen-timeout-rule=flat"],
            "timeout policy (cap_s=suite default rule=flat vs cap_s=suite default factor=10.0"
            " rule=reference in s1.jsonl)",
            id="timeout-rule",
        ),
        pytest.param(
            ["--codegen-timeout=10"],
            ["--codegen-timeout=20"],
            "timeout policy (cap_s=20.0 factor=10.0 rule=reference vs cap_s=10.0",
            id="timeout-cap",
        ),
    ],
)
@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_merging_results_that_differ_is_one_line_and_exit_4(
    pytester, suite, xdist, first, second, says
):
    for i, extra in ((1, first), (2, second)):
        shard = pytester.runpytest_subprocess(
            *REPLAY, suite, *extra, f"--codegen-shard={i}/2", f"--codegen-results=s{i}.jsonl"
        )
        assert shard.ret in (0, 1)
    merged = pytester.runpytest_subprocess(
        "--codegen-merge=s1.jsonl", "--codegen-merge=s2.jsonl", *xdist
    )
    line = one_error(merged)
    assert line.startswith(
        "ERROR: --codegen-merge: s2.jsonl is not comparable with the files before it: "
    )
    assert says in line


def test_merging_results_of_other_data_is_refused_and_files_without_data_merge(pytester, suite):
    for i in (1, 2):
        pytester.runpytest_subprocess(
            *REPLAY, suite, f"--codegen-shard={i}/2", f"--codegen-results=s{i}.jsonl"
        )
    merge = ["--codegen-merge=s1.jsonl", "--codegen-merge=s2.jsonl"]
    assert pytester.runpytest_subprocess(*merge).ret == 1  # as the run: some samples fail

    def data(sha: str):
        return lambda r: {**r, "data": {"name": "gen", "version": "1", "sha256": sha}}

    rewrite(pytester.path / "s1.jsonl", data("aaa"))
    rewrite(pytester.path / "s2.jsonl", lambda r: {k: v for k, v in r.items() if k != "data"})
    assert pytester.runpytest_subprocess(*merge).ret == 1  # s2 says nothing of its data
    rewrite(pytester.path / "s2.jsonl", data("bbb"))
    line = one_error(pytester.runpytest_subprocess(*merge))
    assert line.endswith(
        "data of gen (name=gen sha256=bbb version=1 vs name=gen sha256=aaa version=1 in s1.jsonl)"
    )
    rewrite(pytester.path / "s2.jsonl", data("aaa"))
    assert pytester.runpytest_subprocess(*merge).ret == 1


def test_files_written_before_the_run_field_still_merge(pytester, suite):
    for i in (1, 2):
        pytester.runpytest_subprocess(
            *REPLAY, suite, f"--codegen-shard={i}/2", f"--codegen-results=s{i}.jsonl"
        )
    rewrite(pytester.path / "s1.jsonl", lambda r: {k: v for k, v in r.items() if k != "run"})
    result = pytester.runpytest_subprocess(
        "--codegen-merge=s1.jsonl", "--codegen-merge=s2.jsonl", "--codegen-results=m.jsonl"
    )
    assert result.ret == 1
    assert len(read_results(pytester.path / "m.jsonl")) == 18


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_baseline_of_other_parameters_is_refused_before_grading(pytester, suite, xdist):
    pytester.runpytest_subprocess(
        *REPLAY, suite, "--codegen-temperature=0.2", "--codegen-results=base.jsonl"
    )
    result = pytester.runpytest_subprocess(
        *REPLAY, suite, "--codegen-temperature=0.8", "--codegen-baseline=base.jsonl", *xdist
    )
    line = one_error(result)
    assert line == (
        "ERROR: --codegen-baseline: base.jsonl is not comparable with this run: model parameters"
        " (extract=auto samples=2 temperature=0.8 vs extract=auto samples=2 temperature=0.2)"
    )
    assert "passed" not in result.stdout.str()  # nothing was graded


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_baseline_graded_by_another_python_is_refused_keeping_the_results(pytester, suite, xdist):
    pytester.runpytest_subprocess(*REPLAY, suite, "--codegen-results=base.jsonl")
    rewrite(pytester.path / "base.jsonl", lambda r: {**r, "run": {**r["run"], "python": "2.7.18"}})
    result = pytester.runpytest_subprocess(
        *REPLAY, suite, "--codegen-baseline=base.jsonl", "--codegen-results=now.jsonl", *xdist
    )
    line = one_error(result)
    assert line.startswith(
        "ERROR: --codegen-baseline: base.jsonl is not comparable with this run: Python version ("
    )
    assert line.endswith(" vs 2.7)")
    assert len(read_results(pytester.path / "now.jsonl")) == 18  # every graded sample kept


def test_a_baseline_of_another_model_is_compared(pytester, suite):
    pytester.runpytest_subprocess(
        "--codegen-model=reference", "--codegen-samples=2", suite, "--codegen-results=base.jsonl"
    )
    result = pytester.runpytest_subprocess(*REPLAY, suite, "--codegen-baseline=base.jsonl")
    result.stdout.fnmatch_lines(["baseline comparison (pass@1, 9 paired problems): 1.000 -> *"])
    assert result.ret in (0, 1)


def test_identity_compares_only_what_both_sides_state():
    run = {"harness": "1", "python": "3.12.4", "timeout": {"rule": "reference"}}
    ours = [{"model": "m", "suite": "s", "run": run}]
    assert identity(ours) == {
        "harness": {"1"},
        "python": {"3.12"},
        "timeout": {"rule=reference"},
        "model": {"m"},
    }
    patch = [{"model": "m", "suite": "s", "run": {**run, "python": "3.12.9"}}]
    old = [{"model": "m", "suite": "s"}]  # a file from before the run field
    assert first_difference([("a", ours), ("b", patch), ("c", old)]) is None
    other = [{"model": "n", "suite": "s", "run": run}]
    assert first_difference([("a", ours), ("c", old), ("d", other)]) == (
        "d is not comparable with the files before it: model (n vs m in a)"
    )


def test_another_toolchain_version_is_not_comparable():
    from pytest_codegen.reporting.comparable import differences, identity

    ours = identity([{"run": {"toolchain": "g++ (Debian 12.2.0-14) 12.2.0"}}])
    theirs = identity([{"run": {"toolchain": "g++ (Debian 14.2.0-19) 14.2.0"}}])
    assert differences(ours, theirs) == [
        "toolchain (g++ (Debian 12.2.0-14) 12.2.0 vs g++ (Debian 14.2.0-19) 14.2.0)"
    ]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_samples_file_given_as_baseline_is_one_line_before_grading(pytester, suite, xdist):
    sample = {"task_id": "gen/f0", "completion": "    return x\n"}
    (pytester.path / "samples.jsonl").write_text("\n" + json.dumps(sample) + "\n")
    result = pytester.runpytest_subprocess(
        *REPLAY, suite, "--codegen-baseline=samples.jsonl", *xdist
    )
    assert one_error(result) == (
        "ERROR: --codegen-baseline: samples.jsonl:2: not a sample record of a results file"
        " (no suite, outcome; a samples file? give a --codegen-results file)"
    )
    assert "passed" not in result.stdout.str()  # nothing was graded


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("reads", ["baseline", "merge"])
def test_a_results_file_with_a_foreign_line_is_refused_naming_it(pytester, suite, reads, xdist):
    pytester.runpytest_subprocess(*REPLAY, suite, "--codegen-results=base.jsonl")
    with (pytester.path / "base.jsonl").open("a") as fh:
        fh.write(json.dumps({"suite": "gen", "task_id": "gen/f0"}) + "\n")
    args = [*REPLAY, suite] if reads == "baseline" else []
    result = pytester.runpytest_subprocess(*args, f"--codegen-{reads}=base.jsonl", *xdist)
    line = one_error(result)
    assert line.startswith(f"ERROR: --codegen-{reads}: ")
    missing = "outcome" if reads == "baseline" else "nodeid, outcome"  # a merge keeps node ids
    assert line.endswith(f"base.jsonl:19: not a sample record of a results file (no {missing})")
    assert "passed" not in result.stdout.str()


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize(
    ("field", "value", "wrong"),
    [
        ("outcome", ["passed"], 'outcome ["passed"] is none of passed, failed, error,'),
        ("outcome", "PASSED", 'outcome "PASSED" is none of passed, failed, error,'),
        ("category", 7, "category is 7, not text"),
        ("data", "tiny", 'data is "tiny", not an object'),
    ],
    ids=["list", "unknown", "category", "data"],
)
@pytest.mark.parametrize("reads", ["baseline", "merge", "resume"])
def test_a_record_whose_field_is_of_another_kind_is_refused_naming_it(
    pytester, suite, reads, field, value, wrong, xdist
):
    # It was an INTERNALERROR once everything was read, or (an unknown outcome) a sample
    # counted in no pass@k.
    pytester.runpytest_subprocess(*REPLAY, suite, "--codegen-results=base.jsonl")
    rewrite(pytester.path / "base.jsonl", lambda r: {**r, field: value})
    written = (pytester.path / "base.jsonl").read_text()
    args = {
        "baseline": [*REPLAY, suite, "--codegen-baseline=base.jsonl"],
        "merge": ["--codegen-merge=base.jsonl"],
        "resume": [*REPLAY, suite, "--codegen-results=base.jsonl", "--codegen-resume"],
    }[reads]
    result = pytester.runpytest_subprocess(*args, *xdist)
    line = one_error(result)
    assert line.startswith(f"ERROR: --codegen-{reads}: ")
    assert f"base.jsonl:1: not a sample record of a results file ({wrong}" in line
    assert "passed" not in result.stdout.str()  # nothing was graded
    assert (pytester.path / "base.jsonl").read_text() == written  # nor written over


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize(
    ("name", "content", "why"),
    [
        ("b.jsonl.gz", b'{"nodeid": "x"}\n', "Not a gzipped file (b'{\"')"),
        ("b.jsonl", b'{"nodeid": "\xff"}\n', "not UTF-8: invalid start byte"),
    ],
    ids=["gz", "utf-8"],
)
@pytest.mark.parametrize("reads", ["baseline", "merge", "compare"])
def test_a_results_file_that_cannot_be_read_is_named(
    pytester, suite, reads, name, content, why, xdist
):
    # Its line said why (json's or gzip's words) but not which of the files it was.
    pytester.runpytest_subprocess(*REPLAY, suite, "--codegen-results=a.jsonl")
    (pytester.path / name).write_bytes(content)
    args = {
        "baseline": [*REPLAY, suite, f"--codegen-baseline={name}"],
        "merge": ["--codegen-merge=a.jsonl", f"--codegen-merge={name}"],
        "compare": ["--codegen-compare", "a.jsonl", name],
    }[reads]
    line = one_error(pytester.runpytest_subprocess(*args, *xdist))
    assert line.startswith(f"ERROR: --codegen-{reads}: ")
    assert line.endswith(f"{name}: cannot read ({why})")


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_baseline_of_other_suites_is_refused_before_grading_suites_first(pytester, tiny, xdist):
    # The run's kind (HumanEval's) has no sampling defaults: its parameters are known at
    # start, though another kind (LiveCodeBench's) has some.
    pytester.runpytest_subprocess(
        "--codegen-model=reference", str(tiny), "--codegen-samples=2", "--codegen-results=b.jsonl"
    )
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", "--codegen-suite=everyday", "-k", "dates",
        "--codegen-baseline=b.jsonl", *xdist,
    )  # fmt: skip
    assert one_error(result) == (
        "ERROR: --codegen-baseline: b.jsonl is not comparable with this run: suites (everyday vs"
        " tiny); model parameters (extract=auto samples=1 vs extract=auto samples=2)"
    )
    assert "passed" not in result.stdout.str()  # nothing was graded


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_baseline_of_other_suites_found_only_by_collecting_is_refused_once_graded(
    pytester, tiny, suite, xdist
):
    pytester.runpytest_subprocess(
        "--codegen-model=reference", str(tiny), "--codegen-samples=2", "--codegen-results=b.jsonl"
    )
    found = pytester.mkdir("found")
    Path(suite).rename(found / "gen.jsonl")
    result = pytester.runpytest_subprocess(
        *REPLAY, "found", "--codegen-baseline=b.jsonl", "--codegen-results=now.jsonl", *xdist
    )
    assert one_error(result) == (
        "ERROR: --codegen-baseline: b.jsonl is not comparable with this run: suites (gen vs tiny)"
    )
    assert len(read_results(pytester.path / "now.jsonl")) == 18  # every graded sample kept


def test_a_baseline_sharing_a_suite_is_compared():
    from pytest_codegen.reporting.comparable import unlike_baseline

    baseline = [{"suite": "humaneval", "task_id": "HumanEval/0", "outcome": "passed"}]
    assert unlike_baseline(Path("b.jsonl"), {}, baseline, {"humaneval", "everyday"}) is None
    assert unlike_baseline(Path("b.jsonl"), {}, baseline, None) is None
    assert unlike_baseline(Path("b.jsonl"), {}, baseline, {"everyday"}) == (
        "--codegen-baseline: b.jsonl is not comparable with this run: suites (everyday vs"
        " humaneval)"
    )


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_kinds_own_sampling_defaults_count_at_start(pytester, xdist):
    from livecodebench_data import PAIR_ROW, SUM_ROW, write_release

    # LiveCodeBench's n = 10, T = 0.2 are what its records state: the same run again is
    # comparable, and one at another temperature is refused before grading.
    write_release(pytester.path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    grade = ["--codegen-model=empty", "test.jsonl"]
    first = pytester.runpytest_subprocess(*grade, "--codegen-results=b.jsonl")
    assert first.ret == 1 and len(read_results(pytester.path / "b.jsonl")) == 20
    again = pytester.runpytest_subprocess(*grade, "--codegen-baseline=b.jsonl", *xdist)
    again.stdout.fnmatch_lines(["baseline comparison (pass@1, 2 paired problems): 0.000 -> *"])
    assert again.ret == 0
    hotter = pytester.runpytest_subprocess(
        *grade, "--codegen-temperature=0.8", "--codegen-baseline=b.jsonl", *xdist
    )
    assert one_error(hotter) == (
        "ERROR: --codegen-baseline: b.jsonl is not comparable with this run: model parameters"
        " (extract=auto samples=10 temperature=0.8 vs extract=auto samples=10 temperature=0.2)"
    )
    assert "failed" not in hotter.stdout.str()  # nothing was graded


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_what_results_files_name_is_shown_not_acted_on_by_the_terminal(pytester, suite, xdist):
    # A category, task id or model name holding an escape sequence (a file another tool or
    # person wrote) reached the terminal as it was in the merge and compare summaries: one
    # that clears the screen cleared it.
    for i in (1, 2):
        pytester.runpytest_subprocess(
            *REPLAY, suite, f"--codegen-shard={i}/2", f"--codegen-results=s{i}.jsonl"
        )
    for name in ("s1.jsonl", "s2.jsonl"):
        rewrite(pytester.path / name, lambda r: {**r, "category": "ar\x1b[2Jith"})
    merged = pytester.runpytest_subprocess(
        "--codegen-merge=s1.jsonl", "--codegen-merge=s2.jsonl", *xdist
    )
    compared = pytester.runpytest_subprocess("--codegen-compare", "s1.jsonl", "s2.jsonl", *xdist)
    for result in (merged, compared):
        assert "\x1b" not in result.stdout.str()
    merged.stdout.fnmatch_lines(["*ar\\x1b[[]2Jith*"])
