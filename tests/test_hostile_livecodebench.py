"""Hostile LiveCodeBench programs (fixtures/hostile/livecodebench.jsonl): each runs on the
stdin problem's public and hidden tests in one sandbox and never passes. The expected outputs
never enter the sandbox, the release file is hidden from it, forged replies and floods end
the sample, nothing outside it changes, and no process of it is left behind."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, read_results
from livecodebench_data import PAIR_ROW, SUM_ROW, write_release, write_samples
from test_hostile_python import LANDLOCK, leftover_sandbox_processes, needs_root

HOSTILE = [
    json.loads(line)
    for line in (FIXTURES / "hostile" / "livecodebench.jsonl").read_text().splitlines()
    if line.strip()
]


@needs_root
@pytest.mark.parametrize("sample", HOSTILE, ids=[s["name"] for s in HOSTILE])
def test_hostile_program(pytester, tmp_path, sample):
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.chmod(0o777)  # even a world-writable directory must stay untouched
    release = write_release(pytester.path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    program = sample["solution"].replace("@RELEASE@", str(release))
    program = program.replace("@TARGET@", str(outside))
    replay = write_samples(pytester.path / "replay.jsonl", [("abc001_a", program)])
    result = pytester.runpytest_subprocess(
        str(release) + "::abc001_a",
        f"--codegen-model=replay:{replay}",
        "--codegen-results=r.jsonl",
        "--codegen-samples=1",
        timeout=300,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-2000:]
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] in sample["expect"], record
    assert not record["passed"]
    assert record["isolation"] == "namespaces+uid" + LANDLOCK, record
    assert list(outside.iterdir()) == []
    assert leftover_sandbox_processes() == []
    if sample["name"] == "sleeps_only_on_hidden_tests":
        # the public test passed; the first hidden one ran out of its 6 s
        assert record["first_failure"]["name"] == "hidden test 2 of 3"
        assert record["tests_passed"] == 1
