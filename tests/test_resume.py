"""``--codegen-resume``: a rerun grades only what the results file lacks (a killed worker or
host mid-run is in tests/test_remote_hosts.py)."""

from __future__ import annotations

import json

import pytest
from conftest import XDIST_MODES, read_results

from pytest_codegen.problems import sanitize_node_name


def run_reference(pytester: pytest.Pytester, *args: str, results: str | None = "r.jsonl"):
    return pytester.runpytest_subprocess(
        "tiny.jsonl",
        "--codegen-model=reference",
        "--codegen-samples=2",
        "--codegen-k=1,2",
        *([f"--codegen-results={results}"] if results else []),
        "-p",
        "no:randomly",
        *args,
    )


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_resume_grades_what_the_file_lacks_and_reports_the_whole_run(pytester, tiny, xdist):
    run_reference(pytester).assert_outcomes(passed=6)
    path = pytester.path / "r.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    # Two samples never graded, and a record cut short as its writer was killed.
    path.write_text("".join(lines[:4]) + lines[4][:40])
    kept = {json.loads(line)["nodeid"] for line in lines[:4]}

    again = run_reference(pytester, "--codegen-resume", *xdist)
    # The samples graded before are deselected: said in pytest's last line, with -n as without.
    again.assert_outcomes(passed=2, deselected=4)
    records = read_results(path)
    assert len(records) == 6
    assert len({r["nodeid"] for r in records}) == 6  # each sample once
    assert {r["nodeid"] for r in records[4:]}.isdisjoint(kept)
    again.stdout.fnmatch_lines(
        [
            "*tiny*(all)*3*6*6*1.000*1.000*",
            "resumed r.jsonl: 4 samples graded before were not graded again",
        ]
    )

    # Nothing left: nothing graded, and the status of the whole run (not "no tests ran").
    done = run_reference(pytester, "--codegen-resume", *xdist)
    assert done.ret == pytest.ExitCode.OK
    done.assert_outcomes(deselected=6)
    assert len(read_results(path)) == 6
    done.stdout.fnmatch_lines(["*tiny*(all)*3*6*6*1.000*1.000*"])


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_resume_without_a_file_starts_afresh(pytester, tiny, xdist):
    run_reference(pytester, "--codegen-resume", *xdist).assert_outcomes(passed=6)
    assert len(read_results(pytester.path / "r.jsonl")) == 6


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize(
    ("results", "model", "line"),
    [
        (None, "reference", "ERROR: --codegen-resume: needs --codegen-results PATH to resume"),
        (
            "r.jsonl",
            "validate",
            "ERROR: --codegen-resume: r.jsonl holds samples of model reference, not validate",
        ),
    ],
    ids=["no-results-file", "other-model"],
)
def test_resume_refuses_with_one_line(pytester, tiny, xdist, results, model, line):
    run_reference(pytester).assert_outcomes(passed=6)
    result = run_reference(
        pytester, "--codegen-resume", f"--codegen-model={model}", *xdist, results=results
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([line])
    assert len(read_results(pytester.path / "r.jsonl")) == 6  # nothing lost


def cut_to_four_records(pytester: pytest.Pytester) -> None:
    """Leave the results file as a run that lost two samples leaves it."""
    path = pytester.path / "r.jsonl"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:4]))


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_resume_into_a_samples_file_is_refused_leaving_it_as_it_was(pytester, tiny, xdist):
    # It was taken for a results file of no graded sample: every sample was graded again and
    # its record appended to the samples.
    samples = "".join(
        json.dumps({"task_id": "tiny/add", "completion": "    return a + b\n"}) + "\n"
        for _ in range(2)
    )
    (pytester.path / "r.jsonl").write_text(samples)
    result = run_reference(pytester, "--codegen-resume", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --codegen-resume: *r.jsonl:1: not a sample record of a results file"
            " (no nodeid, suite, outcome; a samples file? give a --codegen-results file)"
        ]
    )
    assert "passed" not in result.stdout.str()
    assert (pytester.path / "r.jsonl").read_text() == samples


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_resume_into_an_unended_samples_file_leaves_its_last_line(pytester, tiny, xdist):
    # Its last line, unended, was cut off as a record a killed writer left half-written
    # before the file was found not to be results at all.
    line = json.dumps({"task_id": "tiny/add", "completion": "    return a + b\n"})
    samples = f"{line}\n{line}"
    (pytester.path / "r.jsonl").write_text(samples)
    result = run_reference(pytester, "--codegen-resume", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (pytester.path / "r.jsonl").read_text() == samples


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_resume_of_a_whole_but_unended_last_record_keeps_it(pytester, tiny, xdist):
    # Another tool's file may end its last line without a newline: that record is kept (it
    # was cut as half-written) and the file ended, so the next record starts a line.
    run_reference(pytester).assert_outcomes(passed=6)
    path = pytester.path / "r.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:4]))
    again = run_reference(pytester, "--codegen-resume", *xdist)
    # The samples graded before are deselected: said in pytest's last line, with -n as without.
    again.assert_outcomes(passed=2, deselected=4)
    records = read_results(path)
    assert len(records) == 6 and len({r["nodeid"] for r in records}) == 6


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_resume_under_other_settings_is_refused_before_grading(pytester, tiny, xdist):
    run_reference(pytester).assert_outcomes(passed=6)
    cut_to_four_records(pytester)
    result = run_reference(pytester, "--codegen-resume", "--codegen-timeout=7", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1, result.stderr.str()
    assert errors[0].startswith(
        "ERROR: --codegen-resume: r.jsonl was graded under other settings than this run:"
        " timeout policy (cap_s=7.0 "
    )
    assert len(read_results(pytester.path / "r.jsonl")) == 4  # nothing graded, nothing lost


def rewrite_records(pytester: pytest.Pytester, change) -> str:
    """Apply ``change`` to each record of r.jsonl; the file's new text."""
    path = pytester.path / "r.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for record in records:
        change(record)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path.read_text()


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_resume_of_a_file_an_earlier_version_wrote_says_what_to_do(pytester, tiny, xdist):
    # Records without a node id were taken for a samples file's: "a samples file? give a
    # --codegen-results file", which it was.
    run_reference(pytester).assert_outcomes(passed=6)
    before = rewrite_records(pytester, lambda r: r.pop("nodeid"))
    result = run_reference(pytester, "--codegen-resume", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if line.startswith("ERROR:")] == [
        f"ERROR: --codegen-resume: {pytester.path / 'r.jsonl'}:1: a record without nodeid"
        " (written by an earlier pytest-codegen?); grade again into a new --codegen-results file"
    ]
    assert (pytester.path / "r.jsonl").read_text() == before


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_resume_of_samples_past_codegen_samples_is_refused(pytester, tiny, xdist):
    # Records that state no settings (an earlier version's) of 2 samples a problem, resumed
    # with 1: the second samples counted in the run's pass@k, 6 samples for a run of 3.
    run_reference(pytester).assert_outcomes(passed=6)
    before = rewrite_records(pytester, lambda r: r.pop("run"))
    result = run_reference(pytester, "--codegen-resume", "--codegen-samples=1", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --codegen-resume: r.jsonl holds sample tiny.jsonl::tiny_*[[]s1[]], past the 1"
            " samples a problem this run grades (--codegen-samples=1): resume with the"
            " --codegen-samples it was graded with, or give a new --codegen-results file"
        ]
    )
    assert "passed" not in result.stdout.str()
    assert (pytester.path / "r.jsonl").read_text() == before
    # With the samples it was graded with, it resumes.
    run_reference(pytester, "--codegen-resume", *xdist).assert_outcomes(deselected=6)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_resume_of_other_data_is_refused_keeping_the_records(pytester, tiny, xdist):
    run_reference(pytester).assert_outcomes(passed=6)
    cut_to_four_records(pytester)
    # The suite changed between the runs: a problem's tests gained a comment.
    rows = [json.loads(line) for line in (pytester.path / "tiny.jsonl").read_text().splitlines()]
    rows[0]["test"] += "\n# changed\n"
    (pytester.path / "tiny.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    result = run_reference(pytester, "--codegen-resume", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --codegen-resume: r.jsonl was graded under other settings than this run:"
            " data of tiny (name=tiny sha256=*"
        ]
    )
    assert len(read_results(pytester.path / "r.jsonl")) == 6  # the two graded now are kept


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_sample_pasted_back_with_resume_is_graded_again_into_the_file(pytester, tiny, xdist):
    rows = [json.loads(line) for line in tiny.read_text().splitlines()]
    answers = {r["task_id"]: r["canonical_solution"] for r in rows}
    replay = pytester.path / "answers.jsonl"

    def write_answers(add: str) -> None:
        answers["tiny/add"] = add
        replay.write_text(
            "".join(json.dumps({"task_id": t, "completion": c}) + "\n" for t, c in answers.items())
        )

    def run(*args: str):
        return pytester.runpytest_subprocess(
            f"--codegen-model=replay:{replay}", "--codegen-results=r.jsonl", *args, *xdist
        )

    write_answers("    return a - b\n")
    run("tiny.jsonl").assert_outcomes(passed=2, failed=1)
    write_answers("    return a + b\n")  # the sample's answer mended (a replay file fixed)
    again = run("tiny.jsonl::tiny_add[s0]", "--codegen-resume")
    again.assert_outcomes(passed=1)
    records = read_results(pytester.path / "r.jsonl")
    assert [r["nodeid"] for r in records[3:]] == ["tiny.jsonl::tiny_add[s0]"]
    assert records[-1]["outcome"] == "passed"
    assert again.ret == pytest.ExitCode.OK
    again.stdout.fnmatch_lines(
        [
            "*tiny*(all)*3*3*3*0*1.000*",
            "resumed r.jsonl: 2 samples graded before were not graded again; "
            "1 named on the command line were",
        ]
    )


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_sample_pasted_by_the_path_of_a_named_builtin_suite_is_graded_again(pytester, xdist):
    # `--codegen-suite=everyday` with `<its path>::<problem>[s0]` is one suite, its samples
    # recorded as `everyday::...`: the pasted sample is regraded, not skipped as graded.
    from pytest_codegen.collect.builtin_suites import builtin_suites

    everyday = builtin_suites()["everyday"]
    rows = [json.loads(line) for line in everyday.read_text().splitlines() if line.strip()]
    first = rows[0]["task_id"]
    replay = pytester.path / "answers.jsonl"

    def run(answer: str, *args: str):
        answers = {r["task_id"]: r["canonical_solution"] for r in rows} | {first: answer}
        replay.write_text(
            "".join(json.dumps({"task_id": t, "completion": c}) + "\n" for t, c in answers.items())
        )
        return pytester.runpytest_subprocess(
            f"--codegen-model=replay:{replay}",
            "--codegen-suite=everyday",
            "--codegen-samples=1",
            "--codegen-results=r.jsonl",
            *args,
            *xdist,
        )

    run("    pass\n").assert_outcomes(failed=1, passed=len(rows) - 1)
    node = sanitize_node_name(first)
    again = run(rows[0]["canonical_solution"], f"{everyday}::{node}[s0]", "--codegen-resume")
    again.assert_outcomes(passed=1, deselected=len(rows) - 1)
    records = read_results(pytester.path / "r.jsonl")
    assert [(r["nodeid"], r["outcome"]) for r in records[len(rows) :]] == [
        (f"everyday::{node}[s0]", "passed")
    ]
    again.stdout.fnmatch_lines(["resumed r.jsonl: * graded before *; 1 named on the command line*"])
