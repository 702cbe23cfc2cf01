"""``--codegen-memory`` where only resource limits confine samples: pytest run by an
unprivileged user (no namespaces, no uid of their own), the path every non-root user takes."""

from __future__ import annotations

import json
import os
import shutil

import pytest
import unprivileged
from conftest import TINY, read_results

pytestmark = pytest.mark.skipif(
    unprivileged.available() is not None, reason=str(unprivileged.available())
)


def _maps(mib: int) -> str:
    """A body of tiny/add that first maps ``mib`` MiB of address space (as `ulimit -v`
    counts it, without touching a page)."""
    return f"    import mmap\n    m = mmap.mmap(-1, {mib} << 20)\n    return a + b\n"


def test_memory_limit_applies_without_root():
    where = unprivileged.workdir()
    try:
        shutil.copy(TINY, where / "tiny.jsonl")
        rows = [
            {"task_id": "tiny/add", "sample_index": 0, "completion": _maps(64)},
            {"task_id": "tiny/add", "sample_index": 1, "completion": _maps(600)},
        ]
        (where / "replay.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        for path in where.iterdir():
            os.chown(path, unprivileged.NOBODY, unprivileged.NOBODY)
        proc = unprivileged.run_pytest(
            where,
            "-p",
            "no:cacheprovider",
            "--codegen-model=replay:replay.jsonl",
            "tiny.jsonl::tiny_add",
            "--codegen-samples=2",
            "--codegen-memory=256",
            "--codegen-results=r.jsonl",
        )
        assert proc.returncode == pytest.ExitCode.TESTS_FAILED, proc.stdout + proc.stderr
        small, large = sorted(read_results(where / "r.jsonl"), key=lambda r: r["sample_index"])
    finally:
        shutil.rmtree(where, ignore_errors=True)
    # Only the limits confine these samples: no namespaces, no uid of their own.
    for record in (small, large):
        assert record["isolation"].startswith("rlimits"), record
    assert small["outcome"] == "passed", small
    assert large["outcome"] == "error", large
    assert "Cannot allocate memory" in large["error"] or "MemoryError" in large["error"], large
