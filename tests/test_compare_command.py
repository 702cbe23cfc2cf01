"""The ``codegen-compare`` console command, run as the installed script in a child process:
the same lines, JSON and page as ``pytest --codegen-compare`` (plain and -n 2) on the four
replayed models, and the same one-line refusals with pytest's usage-error status."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from conftest import XDIST_MODES
from test_compare_runs import EVERYDAY, MODELS, grade

# The script pip installed beside this interpreter (the project's [project.scripts]).
COMMAND = shutil.which("codegen-compare", path=str(Path(sys.executable).parent))


def comparison_block(lines: list[str], header: str) -> list[str]:
    """The lines from the comparison's header up to the file it wrote."""
    start = next(i for i, ln in enumerate(lines) if header in ln)
    end = next(i for i, ln in enumerate(lines) if ln.startswith("comparison (JSON): "))
    return lines[start + 1 : end + 1]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_command_gives_what_pytest_gives(pytester, xdist):
    assert COMMAND is not None, "codegen-compare is not installed beside " + sys.executable
    files = [grade(pytester, m, EVERYDAY, "--codegen-samples=2") for m in MODELS]
    through_pytest = pytester.runpytest_subprocess(
        "--codegen-compare",
        *files,
        "--codegen-k=1,2",
        "--codegen-compare-out=pytest.json",
        "--codegen-html=pytest.html",
        *xdist,
    )
    assert through_pytest.ret == 0
    command = pytester.run(
        COMMAND,
        *files,
        "--codegen-k=1,2",
        "--codegen-compare-out=command.json",
        "--codegen-html=command.html",
    )
    assert command.ret == 0, command.stderr.str()

    assert command.stdout.lines[0] == "codegen: comparison of 4 runs"
    ours = comparison_block(command.stdout.lines, "codegen: comparison of 4 runs")
    theirs = comparison_block(through_pytest.stdout.lines, "codegen: comparison of 4 runs")
    assert [ln.replace("command.json", "pytest.json") for ln in ours] == theirs
    assert any(ln.startswith("by category (everyday)") for ln in ours)
    assert json.loads((pytester.path / "command.json").read_text()) == json.loads(
        (pytester.path / "pytest.json").read_text()
    )
    assert (pytester.path / "command.html").read_text() == (
        pytester.path / "pytest.html"
    ).read_text()


def test_the_command_refuses_as_pytest_does(pytester):
    assert COMMAND is not None
    grade(pytester, "alpha", EVERYDAY)
    # A copy whose task ids are all other: no problem to pair (it printed every score n/a and
    # exited 0, where --codegen-baseline refuses the same).
    renamed = [
        json.dumps({**json.loads(line), "task_id": "other/" + json.loads(line)["task_id"]})
        for line in (pytester.path / "alpha.jsonl").read_text().splitlines()
    ]
    (pytester.path / "renamed.jsonl").write_text("\n".join(renamed) + "\n")
    for args in (
        ["alpha.jsonl"],
        ["alpha.jsonl", "gone.jsonl"],
        ["alpha.jsonl", "renamed.jsonl"],
        ["alpha.jsonl", "alpha.jsonl", "--codegen-k=0"],
    ):
        command = pytester.run(COMMAND, *args)
        assert command.ret == pytest.ExitCode.USAGE_ERROR
        (error,) = command.stderr.lines
        assert error.startswith("ERROR: --codegen-")
        assert command.stdout.lines == []
        if "--codegen-k=0" in args:
            continue
        through_pytest = pytester.runpytest_subprocess("--codegen-compare", *args)
        assert through_pytest.ret == pytest.ExitCode.USAGE_ERROR
        assert error in through_pytest.stderr.lines


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_file_the_disk_refuses_is_one_line_from_both(pytester, xdist):
    """A full disk (``/dev/full`` refuses every write) for the comparison's JSON or page raised
    out of the end (a traceback; with pytest, exit 0 and the other file never written)."""
    files = [grade(pytester, m, EVERYDAY) for m in ("alpha", "beta")]
    for refused, written in (("compare-out", "html"), ("html", "compare-out")):
        outputs = [f"--codegen-{refused}=/dev/full", f"--codegen-{written}=out.{written}"]
        through_pytest = pytester.runpytest_subprocess(
            "--codegen-compare", *files, *outputs, *xdist
        )
        command = pytester.run(COMMAND, *files, *outputs)
        line = f"ERROR: --codegen-{refused}: cannot write /dev/full (No space left on device)"
        for result in (through_pytest, command):
            assert result.ret == pytest.ExitCode.USAGE_ERROR
            assert result.stderr.lines == [line]
            assert "/dev/full" not in result.stdout.str()
        assert (pytester.path / f"out.{written}").stat().st_size > 0
