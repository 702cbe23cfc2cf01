"""What a program's status is when a time limit, not its answer, stopped it: MultiPL-E's
evaluators read a compiler stopped at its limit by its exit code (C++, Java, TypeScript:
``SyntaxError``) or by the timeout (Rust, Go: ``Timeout``), and a verdict a time limit
decided is run once more before it counts, whatever its name."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, XDIST_MODES, read_results

from pytest_codegen.execution.native import programs
from pytest_codegen.execution.native.toolchains import ToolchainMissing, find

ADD = FIXTURES / "multipl_e" / "add.jsonl"
# MultiPL-E's status of a build its evaluator stopped at the limit: safe_subprocess's run
# returns exit code -1, which eval_cpp.py, eval_java.py and eval_ts.py read as a failed
# build; eval_rust.py catches subprocess.TimeoutExpired as "Timeout"; eval_go.py's one step,
# go test, likewise.
BUILD_STOPPED = {
    "cpp": "SyntaxError",
    "java": "SyntaxError",
    "ts": "SyntaxError",
    "rs": "Timeout",
    "go": "Timeout",
}
# A body whose compile evaluates 2^33 steps of a constant expression (g++'s limit), which
# takes minutes: any compile time limit of a few seconds stops it.
SLOW_BUILD = (
    "    constexpr auto slow = [] { long s = 0; for (long i = 0; i < 200000; i++)"
    " for (long j = 0; j < 200000; j++) s += j; return s; };\n"
    '    static_assert(slow() != 0, "");\n    return x + y;\n}\n'
)


def here(lang: str) -> bool:
    try:
        find(lang)
    except ToolchainMissing:
        return False
    return True


def stopped(timeout: bool) -> dict:
    return {"exit_code": -1, "timeout": timeout, "stdout": "", "stderr": ""}


@pytest.mark.parametrize("lang", sorted(BUILD_STOPPED))
def test_a_build_stopped_at_its_limit_has_upstreams_status(lang):
    if not here(lang):
        pytest.skip(f"no {lang} toolchain here")
    libs = programs.Libraries(typescript="/nonexistent/typescript")  # tsc's path, unused
    made = programs.build(find(lang), "", "/nonexistent", 30.0, libs)
    assert programs.status(lang, made, [stopped(timeout=True)]) == BUILD_STOPPED[lang]
    # A build that fails on its own is a SyntaxError wherever there is a build step.
    if made.compiled:
        assert programs.status(lang, made, [stopped(timeout=False)]) == "SyntaxError"


@pytest.mark.skipif(not here("cpp"), reason="no g++ here")
@pytest.mark.parametrize("mode", XDIST_MODES)
def test_a_cpp_compile_past_its_limit_is_a_syntax_error_run_twice(pytester, mode):
    replay = pytester.path / "slow.jsonl"
    sample = {"task_id": "HumanEval_53_add_cpp", "sample_index": 0, "completion": SLOW_BUILD}
    replay.write_text(json.dumps(sample) + "\n")
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        f"{ADD}::HumanEval_53_add_cpp",
        "--codegen-timeout=4",  # the compile gets upstream's 15 s of 30: 2 s
        "--codegen-timeout-rule=flat",
        "--codegen-results=r.jsonl",
        *mode,
        timeout=600,
    )
    result.assert_outcomes(failed=1)
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] == "error"
    assert record["program_status"] == "SyntaxError"
    assert record["error"].startswith("SyntaxError: its build ran out of time")
    assert "the absolute cap of 4 s" in record["error"]
    assert record.get("timeout_rerun") is True  # a moment of load does not decide it


@pytest.mark.skipif(not here("js"), reason="no Node here")
@pytest.mark.parametrize("mode", XDIST_MODES)
def test_humaneval_x_js_output_not_utf8_says_why_and_is_not_run_again(pytester, mode):
    replay = pytester.path / "bytes.jsonl"
    completion = "  process.stdout.write(Buffer.from([0xff]));\n  return x + y;\n};\n"
    replay.write_text(json.dumps({"task_id": "JavaScript/0", "completion": completion}) + "\n")
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        f"{FIXTURES / 'humaneval_x' / 'humaneval_js.jsonl'}::JavaScript_0",
        "--codegen-results=r.jsonl",
        *mode,
        timeout=600,
    )
    result.assert_outcomes(failed=1)
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] == "timeout"  # CodeGeeX's "timed out"
    assert record["error"] == (
        "Timeout: its output is not UTF-8, which CodeGeeX's check reports as timed out"
    )
    assert "timeout_rerun" not in record
    assert "timeouts run again" not in result.stdout.str()


def test_multipl_e_programs_run_in_its_images_time_zone():
    if not here("sh"):
        pytest.skip("no bash here")
    made = programs.build(find("sh"), "", "/nonexistent", 30.0)
    assert {step["env"]["TZ"] for step in made.steps} == {"Etc/UTC"}


@pytest.mark.skipif(not here("sh"), reason="no bash here")
@pytest.mark.parametrize("mode", XDIST_MODES)
def test_a_multipl_e_program_sees_utc_whatever_the_hosts_zone(pytester, mode, monkeypatch):
    """The run's own zone, not the host's: a Bash answer that passes only at UTC+0000."""
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    replay = pytester.path / "zone.jsonl"
    completion = '    [[ "$(date +%z)" == "+0000" ]] && echo $(( $1 + $2 ))\n}\n'
    sample = {"task_id": "HumanEval_53_add_sh", "sample_index": 0, "completion": completion}
    replay.write_text(json.dumps(sample) + "\n")
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}", f"{ADD}::HumanEval_53_add_sh", *mode, timeout=600
    )
    result.assert_outcomes(passed=1)
