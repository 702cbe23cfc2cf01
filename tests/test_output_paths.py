"""The files a run writes are checked at start: a path no file can be written to is one line
naming the option and the path, exit 4, before anything is graded, with and without xdist."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import XDIST_MODES

GRADE = ["--codegen-model=reference", "tiny.jsonl"]

CASES = {
    "results is a directory": (
        [*GRADE, "--codegen-results=."],
        "--codegen-results: . is a directory (give a file's path)",
    ),
    "html is a directory": (
        [*GRADE, "--codegen-html=sub"],
        "--codegen-html: sub is a directory (give a file's path)",
    ),
    "results under a file": (
        [*GRADE, "--codegen-results=tiny.jsonl/deeper/r.jsonl"],
        "--codegen-results: cannot write tiny.jsonl/deeper/r.jsonl: tiny.jsonl is not a directory",
    ),
    "build output is a directory": (
        ["--codegen-model=reference", "--codegen-build=frags.py", "--codegen-build-out=sub"],
        "--codegen-build-out: sub is a directory (give a file's path)",
    ),
    "build output is a file of the user's": (
        ["--codegen-model=reference", "--codegen-build=frags.py", "--codegen-build-out=keep.py"],
        "--codegen-build-out: keep.py is a file no build wrote (a build's suite is a JSON list"
        " of examples, each with its source); give another path, or remove the file",
    ),
    "results named as gzip": (
        [*GRADE, "--codegen-results=r.jsonl.gz"],
        "--codegen-results: r.jsonl.gz: results are written as plain JSON lines, not gzip"
        " (give a name without .gz)",
    ),
    "results and html at one path": (
        [*GRADE, "--codegen-results=out", "--codegen-html=./out"],
        "--codegen-html: out is also the file of --codegen-results (give each its own)",
    ),
    "results at the junitxml path": (
        [*GRADE, "--codegen-results=sub/../junit.xml", "--junitxml=junit.xml"],
        "--codegen-results: sub/../junit.xml is also the file of --junitxml (give each its own)",
    ),
    "comparison output and page at one path": (
        ["--codegen-compare", "a.jsonl", "b.jsonl", "--codegen-compare-out=c", "--codegen-html=c"],
        "--codegen-html: c is also the file of --codegen-compare-out (give each its own)",
    ),
    "comparison output is a directory": (
        ["--codegen-compare", "a.jsonl", "b.jsonl", "--codegen-compare-out=sub"],
        "--codegen-compare-out: sub is a directory (give a file's path)",
    ),
}


def one_error(result: pytest.RunResult) -> str:
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    (line,) = [ln for ln in result.stderr.lines if ln.strip()]
    assert "Traceback" not in result.stdout.str()
    assert "passed" not in result.stdout.str()  # nothing was graded
    return line


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_an_output_path_that_cannot_be_written_is_refused_at_start(pytester, tiny, case, xdist):
    args, expected = CASES[case]
    (pytester.path / "sub").mkdir()
    keep = pytester.path / "keep.py"
    keep.write_text("def kept():\n    return 1\n")
    assert one_error(pytester.runpytest_subprocess(*args, *xdist)) == f"ERROR: {expected}"
    assert keep.read_text() == "def kept():\n    return 1\n"


def unwritable_directory(pytester: pytest.Pytester) -> Path:
    """A directory where no file can be created: a read-only one, or (for root, whom modes
    do not stop) /sys, where the kernel refuses."""
    readonly = pytester.path / "readonly"
    readonly.mkdir(mode=0o555)
    for candidate in (readonly, Path("/sys")):
        try:
            (candidate / "probe").touch()
        except OSError:
            return candidate
        (candidate / "probe").unlink()
    pytest.skip("no directory here refuses a new file")


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_unwritable_place_is_refused_at_start(pytester, tiny, xdist):
    place = unwritable_directory(pytester)
    html = place / "report.html"
    line = one_error(pytester.runpytest_subprocess(*GRADE, f"--codegen-html={html}", *xdist))
    shown = html.relative_to(pytester.path) if html.is_relative_to(pytester.path) else html
    assert line == f"ERROR: --codegen-html: cannot write {shown} (Permission denied)"


def test_an_ini_key_is_named_as_the_ini_key(pytester, tiny):
    pytester.makeini("[pytest]\ncodegen_results = .\n")
    line = one_error(pytester.runpytest_subprocess(*GRADE))
    assert line == "ERROR: ini key codegen_results: . is a directory (give a file's path)"


def test_missing_directories_are_still_made_and_files_left_as_they_were(pytester, tiny):
    report = pytester.path / "report.html"
    report.write_text("an earlier report")
    before = report.stat().st_mtime_ns
    result = pytester.runpytest_subprocess(
        *GRADE, "--codegen-results=new/deeper/r.jsonl", "--codegen-html=report.html", "--co"
    )
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    assert report.read_text() == "an earlier report" and report.stat().st_mtime_ns == before
    assert not [p for p in pytester.path.rglob(".codegen-write-check-*")]
    assert (pytester.path / "new" / "deeper").is_dir()


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("model", ["no-such-model", "replay:missing.jsonl"])
def test_a_usage_error_at_start_leaves_an_earlier_results_file_as_it_was(
    pytester, tiny, model, xdist
):
    earlier = pytester.path / "r.jsonl"
    earlier.write_text('{"an": "earlier run"}\n')
    result = pytester.runpytest_subprocess(
        f"--codegen-model={model}", "tiny.jsonl", "--codegen-results=r.jsonl", *xdist
    )
    assert one_error(result).startswith("ERROR: --codegen-model")
    assert earlier.read_text() == '{"an": "earlier run"}\n'


INPUTS = {
    "the samples replayed": (
        ["--codegen-model=replay:s.jsonl", "tiny.jsonl", "--codegen-results=s.jsonl"],
        "--codegen-results: s.jsonl is the samples file this run replays (--codegen-model)",
    ),
    "the suite graded": (
        [*GRADE, "--codegen-html=./tiny.jsonl"],
        "--codegen-html: tiny.jsonl is a suite file this run grades",
    ),
    "the baseline": (
        [*GRADE, "--codegen-baseline=b.jsonl", "--codegen-results=./b.jsonl"],
        "--codegen-results: b.jsonl is the baseline (--codegen-baseline)",
    ),
    "a run compared": (
        ["--codegen-compare", "s.jsonl", "b.jsonl", "--codegen-compare-out=b.jsonl"],
        "--codegen-compare-out: b.jsonl is a results file this run compares (--codegen-compare)",
    ),
}


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("case", sorted(INPUTS))
def test_an_output_path_that_is_an_input_of_the_run_is_refused_at_start(
    pytester, tiny, case, xdist
):
    # The run read it and then wrote its results, report or comparison over it.
    args, expected = INPUTS[case]
    inputs = {name: pytester.path / name for name in ("s.jsonl", "b.jsonl", "tiny.jsonl")}
    (pytester.path / "s.jsonl").write_text('{"task_id": "tiny/add", "completion": "x"}\n')
    (pytester.path / "b.jsonl").write_text("")
    before = {name: path.read_bytes() for name, path in inputs.items()}
    assert one_error(pytester.runpytest_subprocess(*args, *xdist)) == f"ERROR: {expected}"
    assert {name: path.read_bytes() for name, path in inputs.items()} == before


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_html_report_the_disk_refuses_is_one_line_at_the_end(pytester, tiny, xdist):
    """A full disk (``/dev/full`` refuses every write) for the HTML report raised out of the
    session's end: a traceback, no summary, and no JUnit XML file (written after it)."""
    result = pytester.runpytest_subprocess(
        *GRADE, "--codegen-html=/dev/full", "--junitxml=junit.xml", *xdist
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.lines == [
        "ERROR: --codegen-html: cannot write /dev/full (No space left on device)"
    ]
    result.stdout.fnmatch_lines(["*codegen: pass@k of reference*", "*3 passed*"])
    assert "html report:" not in result.stdout.str()
    assert 'name="codegen:tiny:pass@1" value="1.0000"' in (pytester.path / "junit.xml").read_text()
