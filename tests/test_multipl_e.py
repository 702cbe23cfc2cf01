"""MultiPL-E programs graded in the sandbox: its evaluator's own self-test, statuses as
outcomes, the toolchain in every record, and a missing toolchain as one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES, XDIST_MODES, read_results

TEST_INPUTS = FIXTURES / "multipl_e" / "test_inputs"
SELF_TESTS = sorted(TEST_INPUTS.glob("*.json"))


def suite_and_replay(base: Path, inputs: list[Path]) -> tuple[Path, Path]:
    """MultiPL-E rows of the self-test inputs, and both completions of each as samples."""
    rows, samples = [], []
    for path in inputs:
        item = json.loads(path.read_text())
        name = f"{item['name']}_{path.name.split('-')[0]}"
        rows.append(
            {
                **{k: item[k] for k in ("language", "prompt", "tests")},
                "name": name,
                "stop_tokens": item["stop_tokens"],
            }
        )
        for index, completion in enumerate(item["completions"]):
            samples.append({"task_id": name, "sample_index": index, "completion": completion})
    suite, replay = base / "selftest-rows.jsonl", base / "selftest-replay.jsonl"
    suite.write_text("".join(json.dumps(r) + "\n" for r in rows))
    replay.write_text("".join(json.dumps(s) + "\n" for s in samples))
    return suite, replay


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_evaluator_self_test_first_completion_ok_second_not(pytester, mode):
    suite, replay = suite_and_replay(pytester.path, SELF_TESTS)
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        "--codegen-samples=2",
        str(suite),
        "--codegen-results=r.jsonl",
        *mode,
        timeout=600,
    )
    result.assert_outcomes(passed=len(SELF_TESTS), failed=len(SELF_TESTS))
    records = read_results(pytester.path / "r.jsonl")
    by_sample = {(r["task_id"], r["sample_index"]): r for r in records}
    for path in SELF_TESTS:
        name = f"HumanEval_53_add_{path.name.split('-')[0]}"
        assert by_sample[(name, 0)]["program_status"] == "OK"
        assert by_sample[(name, 1)]["program_status"] == "SyntaxError"
        assert by_sample[(name, 1)]["outcome"] == "error"
    toolchains = {r["task_id"].rsplit("_", 1)[1]: r["run"]["toolchain"] for r in records}
    assert "g++" in toolchains["cpp"] and toolchains["js"].startswith("v")


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_empty_answers_fail(pytester, mode):
    suite, _ = suite_and_replay(pytester.path, SELF_TESTS)
    result = pytester.runpytest_subprocess(
        "--codegen-model=empty", str(suite), "--codegen-results=r.jsonl", *mode, timeout=600
    )
    result.assert_outcomes(failed=len(SELF_TESTS))
    statuses = {r["program_status"] for r in read_results(pytester.path / "r.jsonl")}
    assert statuses == {"Exception"}


def test_missing_toolchain_is_one_line_and_exit_4(pytester, monkeypatch):
    suite, _ = suite_and_replay(
        pytester.path, [TEST_INPUTS / "cpp-davinci-0.2-keep-HumanEval53.json"]
    )
    monkeypatch.setenv("PATH", "/nonexistent")
    result = pytester.runpytest_subprocess("--codegen-model=empty", str(suite), "-n", "2")
    assert result.ret == 4
    lines = [line for line in result.stderr.lines if line.strip()]
    assert len(lines) == 1, lines
    assert "C++ samples need g++" in lines[0] and "Debian package g++" in lines[0]


# Right answers to fixtures/multipl_e/add.jsonl, each followed by what a model might go on to
# write past the stop token (cut off: it never runs).
RIGHT = {
    "cpp": "    return x + y;\n}\nint unused() { return ; }\n",
    "js": "    return x + y;\n}\n\nfunction unused( {\n",
    "go": "    return x + y\n\nfunc unused( {\n",
    "rs": "    x + y\n}\nfn unused( {\n",
    "java": "        return x + y;\n    }\n    broken(\n",
}


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_every_language_passes_its_right_answer_cut_at_the_stop_token(pytester, mode):
    replay = pytester.path / "right.jsonl"
    replay.write_text(
        "".join(
            json.dumps({"task_id": f"HumanEval_53_add_{lang}", "completion": text}) + "\n"
            for lang, text in RIGHT.items()
        )
    )
    suite = FIXTURES / "multipl_e" / "add.jsonl"
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        str(suite),
        "--codegen-results=r.jsonl",
        *mode,
        timeout=900,
    )
    result.assert_outcomes(passed=len(RIGHT))
    records = read_results(pytester.path / "r.jsonl")
    assert {r["category"] for r in records} == set(RIGHT)
    assert all(r["program_status"] == "OK" and r["run"]["toolchain"] for r in records)
