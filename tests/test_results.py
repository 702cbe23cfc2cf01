"""The results file: one line per sample, complete even when workers die or the run stops."""

from __future__ import annotations

import pytest
from conftest import read_results, write_replay

FIELDS = {
    "nodeid",
    "suite",
    "task_id",
    "category",
    "sample_index",
    "outcome",
    "passed",
    "duration_s",
    "completion",
    "error",
    "model",
    "mode",
}


def test_one_line_per_sample_with_the_documented_fields(pytester, tiny):
    replay = write_replay(
        pytester.path / "replay.jsonl",
        [
            {"task_id": "tiny/add", "completion": "    return a + b\n"},
            {"task_id": "tiny/reverse_words", "completion": "Sorry, no."},
        ],
    )
    pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}", str(tiny), "--codegen-results=out/r.jsonl"
    )
    records = {r["task_id"]: r for r in read_results(pytester.path / "out" / "r.jsonl")}
    assert set(records) == {"tiny/add", "tiny/reverse_words", "tiny/Counter"}
    assert all(FIELDS <= set(r) for r in records.values())
    add = records["tiny/add"]
    assert (add["outcome"], add["passed"], add["suite"], add["category"], add["mode"]) == (
        "passed",
        True,
        "tiny",
        "arith",
        "python-call",
    )
    assert add["model"] == f"replay:{replay}"
    assert records["tiny/reverse_words"]["outcome"] == "unextractable"
    assert records["tiny/Counter"]["outcome"] == "missing"


def test_a_stopped_run_lists_the_samples_it_did_not_grade(pytester, tiny):
    replay = write_replay(
        pytester.path / "replay.jsonl",
        [
            {"task_id": "tiny/add", "completion": "    return 0\n"},
        ],
    )
    pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        str(tiny),
        "-x",
        "--codegen-samples=2",
        "--codegen-results=r.jsonl",
    )
    records = read_results(pytester.path / "r.jsonl")
    assert len(records) == 6 and len({r["nodeid"] for r in records}) == 6
    assert records[0]["outcome"] == "failed"
    assert {r["outcome"] for r in records[1:]} == {"missing"}
    # a never-run sample still says which problem it belongs to
    assert {r["task_id"] for r in records} >= {"tiny/add"}


def test_a_killed_worker_loses_no_sample(pytester, tiny):
    pytester.makeconftest("""
        import os
        import pytest

        @pytest.hookimpl(tryfirst=True)
        def pytest_runtest_call(item):
            if item.nodeid.endswith("tiny_reverse_words[s1]") and os.environ.get(
                    "PYTEST_XDIST_WORKER"):
                os._exit(3)  # the worker dies mid-sample
    """)
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference",
        str(tiny),
        "-n",
        "2",
        "--codegen-samples=3",
        "--codegen-results=r.jsonl",
    )
    records = read_results(pytester.path / "r.jsonl")
    by_node = {r["nodeid"]: r["outcome"] for r in records}
    assert len(records) == len(by_node) == 9
    assert by_node["tiny.jsonl::tiny_reverse_words[s1]"] == "crashed"
    assert sum(o == "passed" for o in by_node.values()) == 8
    assert result.ret == pytest.ExitCode.TESTS_FAILED
