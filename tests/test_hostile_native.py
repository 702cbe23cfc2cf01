"""Hostile programs in C++, JavaScript, TypeScript, Go, Rust, Java, Perl, Ruby, PHP, Lua, R,
Racket, OCaml and Bash (``fixtures/hostile/native.jsonl``): loops, fork bombs, floods of output,
writes outside, reading the suite (the answer key) and detached children. Compilers and
programs run confined as Python samples do: each sample ends with the outcome expected, nothing
outside changes, and no process outlives it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys

import pytest
import unprivileged
from conftest import FIXTURES, XDIST_MODES, read_results
from test_hostile_python import leftover_sandbox_processes

from pytest_codegen.execution.native.toolchains import ToolchainMissing, find

HOSTILE = [
    json.loads(line)
    for line in (FIXTURES / "hostile" / "native.jsonl").read_text().splitlines()
    if line.strip()
]
LANGUAGES = sorted({h["language"] for h in HOSTILE})
# Runs as an unprivileged user: nobody as root (unprivileged.py), else the current user.
UNPRIVILEGED = pytest.mark.skipif(
    os.getuid() == 0 and unprivileged.available() is not None,
    reason=str(unprivileged.available()),
)


@pytest.mark.skipif(os.getuid() != 0, reason="full isolation needs root")
@pytest.mark.parametrize("language", LANGUAGES)
def test_hostile_programs_are_contained(pytester, tmp_path, language):
    samples = [h for h in HOSTILE if h["language"] == language]
    suite = pytester.path / "add.jsonl"
    shutil.copy(FIXTURES / "multipl_e" / "add.jsonl", suite)
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.chmod(0o777)  # even a world-writable directory must stay untouched
    task = f"HumanEval_53_add_{language}"
    replay = write_replay(pytester.path / "replay.jsonl", task, samples, outside, suite)
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        f"--codegen-samples={len(samples)}",
        f"add.jsonl::{task}",
        "--codegen-timeout=10",
        "--codegen-results=r.jsonl",
        "-n",
        "2",
        timeout=900,
    )
    assert result.ret in (0, 1), result.stdout.str()[-2000:]
    records = {r["sample_index"]: r for r in read_results(pytester.path / "r.jsonl")}
    for index, sample in enumerate(samples):
        record = records[index]
        assert record["outcome"] in sample["expect"], (sample["name"], record)
        assert record["isolation"].startswith("namespaces+uid"), record
    assert list(outside.iterdir()) == []
    assert leftover_sandbox_processes() == []


def write_replay(path, task, samples, outside, suite):
    """A replay file of ``samples`` as answers to ``task``, naming the real folder outside
    and suite file where they say ``@TARGET@`` and ``@SUITE@``."""
    path.write_text(
        "".join(
            json.dumps(
                {
                    "task_id": task,
                    "sample_index": index,
                    "completion": sample["completion"]
                    .replace("@TARGET@", str(outside))
                    .replace("@SUITE@", str(suite)),
                }
            )
            + "\n"
            for index, sample in enumerate(samples)
        )
    )
    return path


def toolchain_here(language):
    try:
        find(language)
    except ToolchainMissing:
        return False
    return True


@pytest.mark.skipif(not toolchain_here("rkt"), reason="no Racket here")
@pytest.mark.parametrize("mode", XDIST_MODES)
def test_a_detached_child_cannot_take_back_what_the_program_printed(pytester, mode):
    """A wrong Racket answer fails by what rackunit prints on stderr (it exits 0). Its
    detached child swapping an empty file in for the step's output, or truncating the
    stream it inherited, passed it; upstream's pipes let nothing be taken back."""
    samples = [h for h in HOSTILE if h["name"].startswith("rkt_rewrite_output_")]
    suite = pytester.path / "add.jsonl"
    shutil.copy(FIXTURES / "multipl_e" / "add.jsonl", suite)
    task = "HumanEval_53_add_rkt"
    replay = write_replay(pytester.path / "replay.jsonl", task, samples, "", suite)
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        f"--codegen-samples={len(samples)}",
        f"add.jsonl::{task}",
        "--codegen-results=r.jsonl",
        *mode,
        timeout=600,
    )
    records = read_results(pytester.path / "r.jsonl")
    assert [r["program_status"] for r in records] == ["Exception"] * len(samples), records
    assert all("FAILURE" in r["stderr"] for r in records), records
    result.assert_outcomes(failed=len(samples))


@UNPRIVILEGED
@pytest.mark.parametrize("mode", XDIST_MODES)
def test_detached_children_die_with_their_sample_without_root(tmp_path, mode):
    """Without root a sample has no uid of its own to kill by: its process group was all that
    was killed, so a child that left it (``setsid``) slept on after the run, one for each
    call of the program's (the zygote's own end then waited 5 s for them)."""
    marker = f"600.{os.getpid()}{len(mode)}"  # what names this run's sleepers in ps
    samples = [h for h in HOSTILE if h["name"] in ("sh_orphan", "cpp_orphan")]
    run = unprivileged_workdir(tmp_path)
    rows = [
        {
            "task_id": f"HumanEval_53_add_{sample['language']}",
            "sample_index": 0,
            "completion": sample["completion"].replace("sleep 600", f"sleep {marker}"),
        }
        for sample in samples
    ]
    (run / "replay.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    args = ["--codegen-model=replay:replay.jsonl", "--codegen-samples=1", "add.jsonl"]
    args += ["-k", "sh or cpp", "--codegen-results=r.jsonl", "-p", "no:cacheprovider", *mode]
    try:
        done = run_unprivileged(run, args)
        records = read_results(run / "r.jsonl")
        assert [r["outcome"] for r in records] == ["passed"] * 2, done.stdout[-3000:]
        assert not any(r["isolation"].startswith("namespaces") for r in records), records
        assert sleepers(marker) == []
    finally:
        for pid in sleepers(marker):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(run, ignore_errors=True)


@UNPRIVILEGED
@pytest.mark.parametrize("mode", XDIST_MODES)
def test_the_users_other_processes_leave_a_sample_its_own(tmp_path, mode):
    """RLIMIT_NPROC counts every process and thread of a uid. Without root that is the
    user's: with more than a sample's 64 already running (a browser has hundreds), every
    fork of a right shell answer failed (\"Resource temporarily unavailable\")."""
    run = unprivileged_workdir(tmp_path)
    answer = {"task_id": "HumanEval_53_add_sh", "completion": "    echo $(( $1 + $2 ))\n"}
    (run / "replay.jsonl").write_text(json.dumps(answer) + "\n")
    user = {"user": unprivileged.NOBODY} if os.getuid() == 0 else {}
    others = [subprocess.Popen(["sleep", "600"], **user) for _ in range(100)]
    try:
        args = ["--codegen-model=replay:replay.jsonl", "add.jsonl", "-k", "sh"]
        done = run_unprivileged(run, [*args, "--codegen-results=r.jsonl", *mode])
        records = read_results(run / "r.jsonl")
        assert [r["outcome"] for r in records] == ["passed"], done.stdout[-3000:]
    finally:
        for other in others:
            other.kill()
            other.wait()
        shutil.rmtree(run, ignore_errors=True)


def unprivileged_workdir(tmp_path, languages=("cpp", "sh")):
    """Where an unprivileged run works, with MultiPL-E's add problem in ``languages`` in it:
    a toolchain the user cannot reach (rustup's under a private /root) would stop the run."""
    run = unprivileged.workdir() if os.getuid() == 0 else tmp_path
    rows = (FIXTURES / "multipl_e" / "add.jsonl").read_text().splitlines(keepends=True)
    kept = [row for row in rows if json.loads(row)["name"].rsplit("_", 1)[1] in languages]
    (run / "add.jsonl").write_text("".join(kept))
    return run


def run_unprivileged(run, args):
    """pytest with ``args`` in ``run`` as an unprivileged user."""
    if os.getuid() == 0:
        for path in run.iterdir():
            os.chown(path, unprivileged.NOBODY, unprivileged.NOBODY)
        return unprivileged.run_pytest(run, *args, timeout=600)
    command = [sys.executable, "-m", "pytest", *args]
    return subprocess.run(command, cwd=run, capture_output=True, text=True, check=False)


def sleepers(marker):
    """The pids of live processes running ``sleep MARKER``."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv[:2] == [b"sleep", marker.encode()]:
            found.append(int(entry))
    return found
