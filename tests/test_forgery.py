"""A program graded with its own tests (Exec-CSN) cannot forge its pass.

Each attack of fixtures/hostile/execcsn.jsonl answers example 101 of the Exec-CSN fixture
suite: the harness's reply forged on every descriptor and an exit before the tests (at call
time, or from a default argument when the def runs), the reply object found through gc, frames
or trace functions, ctypes, /proc/self/mem, the harness's own end-of-tests code called early,
the key's page looked for and asked of the grader's hook, the failure reply rewritten, a
thread, a fork, a fresh interpreter or a subinterpreter doing the forging, ctypes loaded past
its block... All but one (a broken reply, which crashed) passed before programs were sealed.
Next to them, honest answers that use what programs use (named tuples, frames and stacks,
logging, threads, subprocesses, numpy, doctest) keep their pass. All are graded by the plugin
itself, plain and with -n 2.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import FIXTURES, XDIST_MODES

ATTACKS = [
    json.loads(line)
    for line in (FIXTURES / "hostile" / "execcsn.jsonl").read_text().splitlines()
    if line.strip()
]
HONEST = [
    json.loads(line)
    for line in (FIXTURES / "replays" / "execcsn-honest.jsonl").read_text().splitlines()
    if line.strip()
]
SUITE = FIXTURES / "suites" / "execcsn-tiny.json"
SAMPLES = [*ATTACKS, *HONEST]


def grade(directory: Path, *args: str) -> tuple[dict[str, dict], str]:
    """Every sample graded by pytest with the plugin in a subprocess: records by sample name,
    and the terminal output."""
    directory.mkdir()
    (directory / "csn1.json").write_text(SUITE.read_text())
    replay = [
        {"task_id": "101", "sample_index": index, "completion": sample["completion"]}
        for index, sample in enumerate(SAMPLES)
    ]
    (directory / "a.jsonl").write_text("".join(json.dumps(row) + "\n" for row in replay))
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "csn1.json::101",
            "--codegen-model=replay:a.jsonl",
            f"--codegen-samples={len(SAMPLES)}",
            "--codegen-results=ra.jsonl",
            "--codegen-tripwire=0",
            *args,
        ],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    records = [json.loads(line) for line in (directory / "ra.jsonl").read_text().splitlines()]
    by_index = {record["sample_index"]: record for record in records}
    assert len(by_index) == len(SAMPLES)
    return {sample["name"]: by_index[i] for i, sample in enumerate(SAMPLES)}, proc.stdout


@pytest.fixture(scope="module", params=XDIST_MODES)
def graded(request, tmp_path_factory) -> tuple[dict[str, dict], str]:
    return grade(tmp_path_factory.mktemp("forgery") / "run", *request.param)


@pytest.mark.parametrize("attack", ATTACKS, ids=[a["name"] for a in ATTACKS])
def test_an_attack_never_passes(graded, attack):
    record = graded[0][attack["name"]]
    assert record["outcome"] in attack["expect"], record
    assert record["passed"] is False
    if record["outcome"] == "tampered":
        assert record["error"].startswith("caught tampering with its grading: "), record


@pytest.mark.parametrize("honest", HONEST, ids=[h["name"] for h in HONEST])
def test_an_honest_program_keeps_its_pass(graded, honest):
    record = graded[0][honest["name"]]
    assert record["outcome"] == "passed", record
    assert record["mode"] == "python-program"


def test_printed_output_of_a_sealed_program_is_kept(graded):
    record = graded[0]["logging_and_warnings"]
    assert record["stdout"].startswith("parsing 90s\nparsing 1h 30m\n"), record
    assert record["stderr"].startswith("parsing '90s'\n"), record
    assert "DeprecationWarning: a deprecated path" in record["stderr"], record


def test_tampering_is_a_graded_non_pass(graded):
    """Counted in pass@k as a sample that did not pass, in a column of its own."""
    records, stdout = graded
    tampered = sum(r["outcome"] == "tampered" for r in records.values())
    passed = sum(r["outcome"] == "passed" for r in records.values())
    assert passed == len(HONEST) and tampered >= len(ATTACKS) - 1
    header = next(line for line in stdout.splitlines() if line.startswith("suite "))
    row = next(line for line in stdout.splitlines() if line.startswith("csn1 "))
    cells = dict(zip(header.split(), row.split(), strict=True))
    assert cells["samples"] == str(len(SAMPLES))
    assert cells["pass"] == str(passed) and cells["tamp"] == str(tampered)
    assert float(cells["pass@1"]) == pytest.approx(passed / len(SAMPLES), abs=5e-4)
    assert re.search(r"FAILED csn1\.json::101\[s0\] - tampered: caught tampering", stdout)


@pytest.mark.parametrize("attack", ATTACKS, ids=[a["name"] for a in ATTACKS])
def test_an_attack_is_flagged_with_its_category(graded, attack):
    """Its record's attempts name what it tried (docs/attempts.md)."""
    record = graded[0][attack["name"]]
    categories = {a["category"] for a in record["attempts"]}
    assert set(attack["attempts"]) <= categories, record["attempts"]
    assert bool(categories) == bool(attack["attempts"]), record["attempts"]
    assert all(a["evidence"] for a in record["attempts"])


@pytest.mark.parametrize("honest", HONEST, ids=[h["name"] for h in HONEST])
def test_an_honest_program_is_not_flagged(graded, honest):
    assert graded[0][honest["name"]]["attempts"] == []


def test_the_summary_counts_the_flagged_samples(graded):
    records, stdout = graded
    flagged = sum(bool(r["attempts"]) for r in records.values())
    per_category = Counter(a["category"] for r in records.values() for a in r["attempts"])
    assert flagged == len(ATTACKS)
    assert set(per_category) == {"grader-access", "introspection", "forgery"}
    assert (
        f"attempts: {flagged} samples flagged (grader-access {per_category['grader-access']}, "
        f"introspection {per_category['introspection']}, forgery {per_category['forgery']})"
        in stdout
    )
