"""Hostile programs in C++, JavaScript, TypeScript, Go, Rust, Java, Perl, Ruby, PHP, Lua, R,
Racket, OCaml and Bash (``fixtures/hostile/native.jsonl``): loops, fork bombs, floods of output,
writes outside, reading the suite (the answer key) and detached children. Compilers and
programs run confined as Python samples do: each sample ends with the outcome expected, nothing
outside changes, and no process outlives it."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from conftest import FIXTURES, XDIST_MODES, read_results
from test_hostile_python import leftover_sandbox_processes

from pytest_codegen.execution.native.toolchains import ToolchainMissing, find

HOSTILE = [
    json.loads(line)
    for line in (FIXTURES / "hostile" / "native.jsonl").read_text().splitlines()
    if line.strip()
]
LANGUAGES = sorted({h["language"] for h in HOSTILE})


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
