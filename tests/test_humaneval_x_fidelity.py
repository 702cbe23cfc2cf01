"""HumanEval-X grading fidelity: the hand-written problems of ``fixtures/humaneval_x/`` and
the samples of ``humaneval_x_fidelity_samples.py`` graded by CodeGeeX's own evaluator
(``evaluate_functional_correctness`` of ``codegeex/benchmark/evaluate_humaneval_x.py``, which
assembles each program and calls ``execution.check_correctness``, from the ``codegeex`` 1.0
wheel, PyPI) and by the plugin, plain and with ``-n 2``: every status agrees, except the
differences pinned in ``KNOWN_DIFFERENCES`` (each documented in docs/languages.md).

The evaluator runs unchanged, in a subprocess of a virtualenv of its own kept in pytest's
cache (the wheel without its dependencies, which are a model's: torch, transformers, ...;
only fire, numpy, regex and tqdm are needed to grade). It finds its toolchains on ``PATH``
and needs what its repository ships beside it and the wheel lacks, made once here: a Go
module requiring testify (its ``go/evaluation/go.mod``) and the cargo project its Rust step
builds in (``benchmark/rust/Cargo.toml``, with the crates' versions of its own), both
warmed by one build so that a first sample does not spend its limit compiling libraries.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, XDIST_MODES, kept_dir, read_results
from filelock import FileLock
from humaneval_x_fidelity_samples import KNOWN_DIFFERENCES, SAMPLES

from pytest_codegen.execution.native.libraries import GO_REQUIRES, cargo_manifest
from pytest_codegen.execution.native.toolchains import tool_env

WHEEL = "codegeex==1.0"
SUITES = sorted((FIXTURES / "humaneval_x").glob("humaneval_*.jsonl"))
# The limit given to its evaluator, per step: enough to compile on a loaded machine.
OFFICIAL_TIMEOUT_S = 20
# Its package's __init__ loads the model (torch); grading needs only its benchmark modules.
DRIVER = """
import importlib.util, sys, types
spec = importlib.util.find_spec("codegeex")
package = types.ModuleType("codegeex")
package.__path__ = list(spec.submodule_search_locations)
sys.modules["codegeex"] = package
from codegeex.benchmark.evaluate_humaneval_x import evaluate_functional_correctness
problems, samples, work, timeout = sys.argv[1:5]
evaluate_functional_correctness(
    input_file=samples, tmp_dir=work, n_workers=1, timeout=float(timeout),
    problem_file=problems, out_dir=work, k=[1],
)
"""
FIND_PACKAGE = (
    "import importlib.util as u; print(u.find_spec('codegeex').submodule_search_locations[0])"
)
WARM_GO_TEST = """package main

import (
    "testing"
    "github.com/stretchr/testify/assert"
)

func TestWarm(t *testing.T) { assert.New(t).Equal(1, 1) }
"""


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> None:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, (argv, done.stdout[-2000:], done.stderr[-2000:])


def official_env(root: Path) -> dict[str, str]:
    """The toolchains on PATH, and Go pointed at the module cache made here."""
    return {
        **tool_env(),
        "GOMODCACHE": str(root / "gomod"),
        "GOCACHE": str(root / "gocache"),
        "GOFLAGS": "-mod=mod",
        "GOTOOLCHAIN": "local",
        "GOTELEMETRY": "off",
    }


def make_go_module(folder: Path, env: dict[str, str]) -> None:
    """Its ``go/evaluation/go.mod``: a module requiring testify, built once."""
    folder.mkdir(exist_ok=True)
    requires = "".join(f"\t{m} {v}\n" for m, v in GO_REQUIRES.items())
    (folder / "go.mod").write_text(f"module humanEval\n\ngo 1.18\n\nrequire (\n{requires})\n")
    (folder / "warm_test.go").write_text(WARM_GO_TEST)
    run(["go", "mod", "tidy"], folder, {**env, "GOFLAGS": ""})
    run(["go", "test", "warm_test.go"], folder, env)
    (folder / "warm_test.go").unlink()


def make_cargo_project(python: Path, env: dict[str, str]) -> Path:
    """Its ``benchmark/rust`` project, where its Rust step (from its own file's place)
    builds: the crates of its Cargo.toml, built once for ``cargo check`` and ``cargo test``."""
    where = subprocess.run(
        [str(python), "-c", FIND_PACKAGE], capture_output=True, text=True, check=True
    ).stdout.strip()
    cargo = Path(where) / "benchmark" / "rust"
    (cargo / "src" / "bin").mkdir(parents=True, exist_ok=True)
    (cargo / "Cargo.toml").write_text(cargo_manifest("rust"))
    (cargo / "src" / "bin" / "warm.rs").write_text("fn main() {}\n")
    run(["cargo", "check", "--bin", "warm", "-q"], cargo, env)
    run(["cargo", "test", "--bin", "warm", "-q"], cargo, env)
    (cargo / "src" / "bin" / "warm.rs").unlink()
    return cargo


@pytest.fixture(scope="session")
def codegeex(pytestconfig: pytest.Config) -> tuple[Path, Path]:
    """``(python, kept folder)``: a virtualenv with the wheel, and its Go module and cargo
    project, made once (under a lock: xdist workers wait for the first)."""
    root = kept_dir(pytestconfig, "codegeex-1.0")
    python = root / "venv" / "bin" / "python"
    with FileLock(str(root / "lock")):
        if not (root / "ready").exists():
            venv = [sys.executable, "-m", "venv", "--clear", str(root / "venv")]
            run(venv, root, dict(os.environ))
            pip = [str(python), "-m", "pip", "install", "-q"]
            run([*pip, "fire", "numpy", "regex", "tqdm"], root, dict(os.environ))
            run([*pip, "--no-deps", WHEEL], root, dict(os.environ))
            make_go_module(root / "go", official_env(root))
            cargo = make_cargo_project(python, official_env(root))
            (root / "rust-project").write_text(str(cargo))
            (root / "ready").write_text(WHEEL)
    return python, root


def problems_file(path: Path) -> Path:
    path.write_text("".join(suite.read_text() for suite in SUITES))
    return path


def official_status(result: str) -> str:
    """HumanEval-X's status of a ``check_correctness`` result."""
    if result in ("passed", "timed out"):
        return result
    if result == "time out":  # the Java step's spelling
        return "timed out"
    return "compilation error" if result.startswith("failed: compilation error") else "failed"


@pytest.fixture(scope="session")
def official_statuses(codegeex, tmp_path_factory) -> dict[str, str]:
    """Each sample's status by CodeGeeX's evaluator, once per test run: its Rust step builds
    in the one kept cargo project, so xdist's workers take turns, and the second reads what
    the first found."""
    python, root = codegeex
    kept = root / f"statuses-{os.environ.get('PYTEST_XDIST_TESTRUNUID', os.getpid())}.json"
    with FileLock(str(root / "evaluator.lock")):
        if not kept.exists():
            for stale in root.glob("statuses-*.json"):
                stale.unlink()
            statuses = evaluate(python, root, tmp_path_factory.mktemp("codegeex"))
            kept.write_text(json.dumps(statuses))
        return json.loads(kept.read_text())


def evaluate(python: Path, root: Path, work: Path) -> dict[str, str]:
    """Each sample's status by CodeGeeX's evaluator, run in ``work``."""
    cargo = Path((root / "rust-project").read_text())
    for stale in (cargo / "src" / "bin").glob("*.rs"):
        stale.unlink()
    evaluation = work / "go" / "evaluation"
    evaluation.mkdir(parents=True)
    for name in ("go.mod", "go.sum"):
        (evaluation / name).write_text((root / "go" / name).read_text())
    prompts = {}
    for suite in SUITES:
        for line in suite.read_text().splitlines():
            row = json.loads(line)
            prompts[row["task_id"]] = row["prompt"]
    samples = work / "samples.jsonl"
    samples.write_text(
        "".join(
            json.dumps(
                {"task_id": task, "prompt": prompts[task], "generation": code, "completion_id": i}
            )
            + "\n"
            for i, (task, _, code, _) in enumerate(SAMPLES)
        )
    )
    env = {**official_env(root), "GOPROXY": "off", "CARGO_NET_OFFLINE": "true"}
    argv = [str(python), "-c", DRIVER, str(problems_file(work / "problems.jsonl"))]
    argv += [str(samples), str(work), str(OFFICIAL_TIMEOUT_S)]
    # A session of its own: what it gives up on keeps running (its C++ binary, its Rust
    # step's cargo), and goes with the session when it is done. Its output goes to files, as
    # those keep a pipe open.
    log = work / "evaluator.log"
    with open(log, "w") as out:
        process = subprocess.Popen(
            argv, cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            process.wait(timeout=1800)
        finally:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert process.returncode == 0, log.read_text()[-3000:]
    results = read_results(work / "samples_results.jsonl")
    assert len(results) == len(SAMPLES), log.read_text()[-3000:]
    return {SAMPLES[r["completion_id"]][1]: official_status(r["result"]) for r in results}


def indexes_in_task() -> list[int]:
    """Each sample's index among its problem's samples."""
    seen: dict[str, int] = {}
    indexes = []
    for task, _, _, _ in SAMPLES:
        indexes.append(seen.get(task, 0))
        seen[task] = indexes[-1] + 1
    return indexes


WORDS = {"OK": "passed", "Exception": "failed", "SyntaxError": "compilation error"}
WORDS["Timeout"] = "timed out"
# A Python sample's outcome (it has no program status): its evaluator says "failed: <the
# exception>" of every exception, a syntax error's too.
PYTHON_WORDS = {"passed": "passed", "timeout": "timed out", "failed": "failed", "error": "failed"}
PYTHON_WORDS["crashed"] = "failed"  # its process ended mid-test (sys.exit): an exception there


def status_of(record: dict) -> str:
    """HumanEval-X's status of one of our records."""
    if "program_status" in record:
        return WORDS.get(record["program_status"], record["outcome"])
    return PYTHON_WORDS[record["outcome"]]


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_every_status_is_codegeex_own(pytester, official_statuses, mode):
    indexes = indexes_in_task()
    replay = pytester.path / "samples.jsonl"
    replay.write_text(
        "".join(
            json.dumps({"task_id": task, "sample_index": i, "completion": code}) + "\n"
            for i, (task, _, code, _) in zip(indexes, SAMPLES, strict=True)
        )
    )
    pytester.runpytest_subprocess(
        *map(str, SUITES),
        f"--codegen-model=replay:{replay}",
        f"--codegen-samples={max(indexes) + 1}",
        "--codegen-k=1",
        "--codegen-results=r.jsonl",
        *mode,
        timeout=1800,
    )
    labels = {(task, i): label for i, (task, label, _, _) in zip(indexes, SAMPLES, strict=True)}
    records = [r for r in read_results(pytester.path / "r.jsonl") if r["outcome"] != "missing"]
    ours = {labels[(r["task_id"], r["sample_index"])]: status_of(r) for r in records}
    assert set(ours) == set(official_statuses) == {label for _, label, _, _ in SAMPLES}
    # Ours are the statuses HumanEval-X's rules give ...
    assert ours == {label: status for _, label, _, status in SAMPLES}
    # ... and CodeGeeX's own evaluator gives the same, but where pinned.
    differences = {
        label: (ours[label], official_statuses[label])
        for label in sorted(ours)
        if ours[label] != official_statuses[label]
    }
    assert differences == KNOWN_DIFFERENCES, (ours, official_statuses)
