"""MultiPL-E programs graded in the sandbox: its evaluator's own self-test, statuses as
outcomes, the toolchain in every record, and a missing toolchain as one line.

The self-test (``evaluation/test_inputs/<lang>-davinci-0.2-keep-HumanEval53.json``: HumanEval
53 with a first completion that must be ``OK`` and a second that must not) runs in every
supported language whose toolchain is on this host. Upstream's inputs of C++, JavaScript,
TypeScript, Perl, Lua and Bash are shipped in ``fixtures/multipl_e/test_inputs``; those of Go,
Java, Rust, Ruby, PHP, R, Racket and OCaml are the project's own, in the same format, in
``fixtures/multipl_e/self_test``. Upstream's inputs of more languages can be added from
``$MULTIPL_E_TEST_INPUTS`` (a copy of that folder); a shipped input of a language wins.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, XDIST_MODES, read_results

from pytest_codegen.execution.native import libraries, programs
from pytest_codegen.execution.native.libraries import (
    cpp_prelude,
    javac_archive,
    javatuples,
    typescript,
    typescript_driver,
)
from pytest_codegen.execution.native.program_run import SUPERVISOR, language_limits
from pytest_codegen.execution.native.toolchains import ToolchainMissing, find
from pytest_codegen.execution.python.sandbox import Limits, Sandbox
from pytest_codegen.execution.python.zygote import Zygote
from pytest_codegen.kinds.multipl_e import MultiPLEKind, load_multipl_e

TEST_INPUTS = FIXTURES / "multipl_e" / "test_inputs"
OWN_TEST_INPUTS = FIXTURES / "multipl_e" / "self_test"
MORE_TEST_INPUTS = Path(
    os.environ.get("MULTIPL_E_TEST_INPUTS")
    or ROOT.parent / "shared" / "data" / "multipl-e" / "test_inputs"
)


def input_language(path: Path) -> str:
    return path.name.split("-")[0]


def toolchain_here(lang: str) -> bool:
    try:
        find(lang)
    except ToolchainMissing:
        return False
    return True


def self_test_inputs() -> list[Path]:
    """One input per supported language whose toolchain is here, a shipped one first."""
    found: dict[str, Path] = {}
    for folder in (MORE_TEST_INPUTS, OWN_TEST_INPUTS, TEST_INPUTS):
        found.update({input_language(p): p for p in sorted(folder.glob("*-HumanEval53.json"))})
    return [found[lang] for lang in sorted(found) if lang in SECOND_STATUS and toolchain_here(lang)]


ADD = FIXTURES / "multipl_e" / "add.jsonl"
# The status MultiPL-E's evaluators give each language's second completion (its self-test
# only asks that it be an error, a timeout or an exception): a build or type error, or an
# exception where the evaluator names no syntax error it can see (Perl, Lua), the program
# runs and its test fails (PHP), or the error is at run time (R's and Racket's unbound names).
SECOND_STATUS = {
    "cpp": "SyntaxError",
    "go": "SyntaxError",
    "java": "SyntaxError",
    "js": "SyntaxError",
    "lua": "Exception",
    "ml": "SyntaxError",
    "php": "Exception",
    "pl": "Exception",
    "r": "Exception",
    "rb": "SyntaxError",
    "rkt": "Exception",
    "rs": "SyntaxError",
    "sh": "Exception",
    "ts": "SyntaxError",
}
OUTCOME = {"SyntaxError": "error", "Exception": "failed"}
SELF_TESTS = self_test_inputs()


def upstream_says_not_ok(status: str) -> bool:
    """The self-test's test of a second completion (``main.py --testing``)."""
    return "Error" in status or status in ("Timeout", "Exception")


def suite_and_replay(base: Path, inputs: list[Path]) -> tuple[Path, Path]:
    """MultiPL-E rows of the self-test inputs, and both completions of each as samples."""
    rows, samples = [], []
    for path in inputs:
        item = json.loads(path.read_text())
        name = f"{item['name']}_{input_language(path)}"
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
    languages = [input_language(path) for path in SELF_TESTS]
    # Every language whose toolchain is here has an input shipped.
    assert set(languages) == {lang for lang in SECOND_STATUS if toolchain_here(lang)}
    for lang in languages:
        name = f"HumanEval_53_add_{lang}"
        first, second = by_sample[(name, 0)], by_sample[(name, 1)]
        assert first["program_status"] == "OK", first
        assert upstream_says_not_ok(second["program_status"]), second
        assert second["program_status"] == SECOND_STATUS[lang], second
        assert second["outcome"] == OUTCOME[SECOND_STATUS[lang]], second
    toolchains = {r["task_id"].rsplit("_", 1)[1]: r["run"]["toolchain"] for r in records}
    assert "g++" in toolchains["cpp"] and toolchains["js"].startswith("v")
    assert toolchains["ts"].startswith("tsc 5.9.3 on node v")
    assert "perl" in toolchains["pl"] and "Lua 5.3" in toolchains["lua"]


def add_row(base: Path, lang: str) -> Path:
    """A suite of the one row of ``fixtures/multipl_e/add.jsonl`` in language ``lang``."""
    (row,) = [line for line in ADD.read_text().splitlines() if f'"HumanEval_53_add_{lang}"' in line]
    suite = base / f"add_{lang}.jsonl"
    suite.write_text(row + "\n")
    return suite


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_empty_answers_fail_in_every_language(pytester, mode):
    result = pytester.runpytest_subprocess(
        "--codegen-model=empty", str(ADD), "--codegen-results=r.jsonl", *mode, timeout=900
    )
    result.assert_outcomes(failed=len(WRONG))
    records = read_results(pytester.path / "r.jsonl")
    assert {r["category"] for r in records} == set(WRONG)
    assert {r["program_status"] for r in records} == {"Exception"}, records


@pytest.mark.parametrize(
    ("lang", "label", "tool", "package"),
    [
        ("cpp", "C++", "g++", "g++"),
        ("ts", "TypeScript", "node", "npm"),
        ("pl", "Perl", "perl", "perl"),
        ("rb", "Ruby", "ruby", "ruby"),
        ("php", "PHP", "php", "php-cli"),
        ("lua", "Lua", "lua5.3", "lua5.3"),
        ("r", "R", "Rscript", "r-base-core"),
        ("rkt", "Racket", "racket", "racket"),
        ("ml", "OCaml", "ocaml", "ocaml-interp"),
        ("sh", "Bash", "bash", "bash"),
    ],
)
def test_missing_toolchain_is_one_line_and_exit_4(
    pytester, monkeypatch, lang, label, tool, package
):
    suite = add_row(pytester.path, lang)
    monkeypatch.setenv("PATH", "/nonexistent")
    result = pytester.runpytest_subprocess("--codegen-model=empty", str(suite), "-n", "2")
    assert result.ret == 4
    lines = [line for line in result.stderr.lines if line.strip()]
    assert len(lines) == 1, lines
    assert f"{label} samples need {tool}," in lines[0], lines
    assert f"(install the Debian package {package})" in lines[0], lines


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_a_missing_toolchain_stops_only_a_run_that_selects_its_language(
    pytester, monkeypatch, mode
):
    """A file of every language's rows, on a host without rustc (rustup's is under the
    real home, which pytester replaces): its C++ sample is graded; selecting its Rust
    sample stops the run in one line, exit 4."""
    assert shutil.which("rustc", path="/usr/bin:/bin") is None
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    cpp = pytester.runpytest_subprocess("--codegen-model=empty", str(ADD), "-k", "cpp", *mode)
    cpp.assert_outcomes(failed=1)
    assert cpp.ret == pytest.ExitCode.TESTS_FAILED, cpp.stderr.str()
    rust = pytester.runpytest_subprocess("--codegen-model=empty", str(ADD), "-k", "rs", *mode)
    assert rust.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in rust.stderr.lines if line.strip()] == [
        f"ERROR: {ADD}: Rust samples need rustc, which is not on this host "
        "(install the Debian package rustc)"
    ]


def test_a_compilers_version_is_asked_once_per_host_until_it_changes(tmp_path, monkeypatch):
    # Every process of a run finds its toolchains; their versions (javac's starts a JVM) are
    # asked once on the host and kept by the compiler's file: one replaced is asked again.
    from pytest_codegen.execution.native.toolchains import _version

    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(tmp_path / "cache"))
    asked = tmp_path / "asked"
    compiler = tmp_path / "fakec"
    compiler.write_text(f"#!/bin/sh\necho x >> {asked}\necho 'fakec 1.0'\n")
    compiler.chmod(0o755)
    assert [_version(str(compiler), ("--version",)) for _ in range(3)] == ["fakec 1.0"] * 3
    assert asked.read_text().count("x") == 1
    compiler.write_text(f"#!/bin/sh\necho x >> {asked}\necho 'fakec 2.0 (upgraded)'\n")
    assert _version(str(compiler), ("--version",)) == "fakec 2.0 (upgraded)"
    assert asked.read_text().count("x") == 2


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_missing_test_library_is_one_line_and_exit_4(pytester, monkeypatch, mode):
    """Lua is there but not luaunit, which MultiPL-E's Lua tests require."""
    suite = add_row(pytester.path, "lua")
    monkeypatch.setenv("LUA_PATH", str(pytester.path / "?.lua"))
    result = pytester.runpytest_subprocess("--codegen-model=empty", str(suite), *mode)
    assert result.ret == 4
    lines = [line for line in result.stderr.lines if line.strip()]
    assert lines == [
        f"ERROR: {suite}: Lua samples need a test library that lua5.3 cannot load "
        "(install the Debian package lua-unit)"
    ]


def answers_replay(path: Path, answers: dict[str, str]) -> Path:
    """A replay file at ``path`` of one answer to fixtures/multipl_e/add.jsonl per language
    (``{language: completion}``)."""
    path.write_text(
        "".join(
            json.dumps({"task_id": f"HumanEval_53_add_{lang}", "completion": text}) + "\n"
            for lang, text in answers.items()
        )
    )
    return path


# Right answers to fixtures/multipl_e/add.jsonl, each followed by what a model might go on to
# write past the stop token (cut off: it never runs).
RIGHT = {
    "cpp": "    return x + y;\n}\nint unused() { return ; }\n",
    "js": "    return x + y;\n}\n\nfunction unused( {\n",
    "go": "    return x + y\n\nfunc unused( {\n",
    "rs": "    x + y\n}\nfn unused( {\n",
    "java": "        return x + y;\n    }\n    broken(\n",
    "ts": "    return x + y;\n}\n\nfunction unused( {\n",
    "pl": "    return $x + $y;\n}\nsub unused {\n",
    "rb": "  x + y\nend\ndef unused(\n",
    "php": "    return $x + $y;\n}\nfunction unused( {\n",
    "lua": "  return x + y\nend\nlocal function unused(\n",
    "r": "\n  x + y\n}\n# unused(\n",
    "rkt": "  (+ x y))\n(define (unused\n",
    "ml": "  x + y\n\nlet unused =\n",
    "sh": "    echo $(( $1 + $2 ))\n}\nunused() {\n",
}


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_every_language_passes_its_right_answer_cut_at_the_stop_token(pytester, mode):
    replay = answers_replay(pytester.path / "right.jsonl", RIGHT)
    suite = ADD
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


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_typescript_compiler_not_installed_is_one_line_and_exit_4(pytester, monkeypatch, mode):
    """npm cannot fetch the compiler (offline, with an empty cache of its own)."""
    suite = add_row(pytester.path, "ts")
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(pytester.path / "cache"))
    monkeypatch.setenv("npm_config_cache", str(pytester.path / "npm-cache"))
    monkeypatch.setenv("npm_config_offline", "true")
    result = pytester.runpytest_subprocess("--codegen-model=empty", str(suite), *mode)
    assert result.ret == 4
    lines = [line for line in result.stderr.lines if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"ERROR: {suite}: TypeScript's compiler: "), lines
    assert "install --no-save failed" in lines[0], lines


@pytest.mark.skipif(not toolchain_here("ts"), reason="no TypeScript toolchain here")
@pytest.mark.parametrize("mode", XDIST_MODES)
def test_a_cache_that_cannot_be_written_stops_a_typescript_suite_in_one_line(
    pytester, monkeypatch, mode
):
    """The compiler is installed into the cache when the suite loads: a cache folder that
    cannot be made (here, under a file) is one line and exit status 4, not an INTERNALERROR."""
    suite = add_row(pytester.path, "ts")
    blocked = pytester.path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(blocked / "cache"))  # cannot be made
    result = pytester.runpytest_subprocess("--codegen-model=empty", str(suite), *mode)
    assert result.ret == 4, result.stderr.lines
    lines = [line for line in result.stderr.lines if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"ERROR: {suite}: the typescript library cannot be kept in "), lines
    assert lines[0].endswith(": Not a directory"), lines


# Wrong answers to fixtures/multipl_e/add.jsonl: they build, run and fail their tests.
WRONG = {
    "cpp": "    return x - y;\n}\n",
    "js": "    return x - y;\n}\n",
    "go": "    return x - y\n",
    "rs": "    x - y\n}\n",
    "java": "        return x - y;\n    }\n",
    "ts": "    return x - y;\n}\n",
    "pl": "    return $x - $y;\n}\n",
    "rb": "  x - y\nend\n",
    "php": "    return $x - $y;\n}\n",
    "lua": "  return x - y\nend\n",
    "r": "\n  x - y\n}\n",
    "rkt": "  (- x y))\n",
    "ml": "  x - y\n",
    "sh": "    echo $(( $1 - $2 ))\n",
}


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_every_language_fails_a_wrong_answer_with_an_exception(pytester, mode):
    replay = answers_replay(pytester.path / "wrong.jsonl", WRONG)
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        str(ADD),
        "--codegen-results=r.jsonl",
        *mode,
        timeout=900,
    )
    result.assert_outcomes(failed=len(WRONG))
    records = read_results(pytester.path / "r.jsonl")
    assert {r["category"] for r in records} == set(WRONG)
    assert {r["program_status"] for r in records} == {"Exception"}, records


def test_cpp_headers_a_program_starts_with_are_precompiled_once_and_used_only_then(tmp_path):
    """MultiPL-E's C++ prompts start with ``#include<assert.h>`` and ``bits/stdc++.h``: that
    header is parsed once per host, and a program compiles with it only where those includes
    come before any code of its own (a ``#define`` first could change what they declare)."""
    (row,) = [json.loads(x) for x in ADD.read_text().splitlines() if '"HumanEval_53_add_cpp"' in x]
    headers = programs.leading_includes("// a comment\n" + row["prompt"])
    assert headers == ("#include<assert.h>", "#include<bits/stdc++.h>")
    prelude = cpp_prelude(programs.CPP_STD["multipl-e"], headers)
    assert Path(prelude + ".gch").is_file()
    assert cpp_prelude(programs.CPP_STD["multipl-e"], headers) == prelude  # made once
    libs = programs.Libraries(cpp_prelude=prelude, cpp_prelude_headers=headers)
    tool = find("cpp")

    def compile_argv(program: str) -> list[str]:
        made = programs.build(tool, program, str(tmp_path), 30.0, libs)
        return made.steps[0]["argv"]

    program = row["prompt"] + "    return x + y;\n}\n" + row["tests"]
    assert compile_argv(program)[2:4] == ["-include", prelude]
    assert "-include" not in compile_argv("#define long int\n" + program)
    assert "-include" not in compile_argv("#include<vector>\n" + program[program.index("//") :])


@pytest.mark.skipif(not toolchain_here("rs"), reason="no Rust toolchain here")
def test_a_rust_samples_binary_loads_std_from_the_toolchain_it_may_read(tmp_path):
    """Rust programs link the toolchain's std as a shared library. The binary runs in its
    sandbox, which may read the toolchain; a copy of it run where the toolchain may not be
    read cannot start, so it does not carry std itself."""
    tool = find("rs")
    assert tool.shared_runtime and tool.shared_runtime.startswith(tool.roots[0])
    program = 'fn main() {\n    assert_eq!(2 + 3, 5);\n    println!("ran");\n}\n'
    limits = language_limits(Limits(timeout_s=60.0, memory_mb=1024), "rs")
    copy = tmp_path / "main"
    with Sandbox(limits, reads=tool.roots) as box:
        made = programs.build(tool, program, str(box.workdir), 50.0)
        assert "prefer-dynamic" in made.steps[0]["argv"]
        steps = box.load((SUPERVISOR,), "run")(made.files, made.steps, 50.0, 4096)
        shutil.copy(box.workdir / "main", copy)
    assert [step["exit_code"] for step in steps] == [0, 0], steps
    assert "ran" in steps[1]["stdout"]
    Zygote.shutdown()  # the launcher of the first sandbox may read the toolchain
    with Sandbox(limits) as box:
        shutil.copy(copy, box.workdir / "main")
        step = {"argv": [str(box.workdir / "main")], "env": {}, "timeout_s": 50.0}
        (alone,) = box.load((SUPERVISOR,), "run")({}, [step], 50.0, 4096)
    assert alone["exit_code"] != 0 and "libstd" in alone["stderr"], alone


# The limit MultiPL-E's evaluator gives each step of a language's program: safe_subprocess's
# 15 s, a plain subprocess.run(timeout=5) for four runs, Go's one step 30 s.
UPSTREAM_STEP_LIMITS = {
    "cpp": [15, 15],
    "js": [5],
    "ts": [15, 15],
    "go": [30],
    "rs": [15, 5],
    "java": [15, 15],
    "pl": [15],
    "rb": [5],
    "php": [15],
    "lua": [15],
    "r": [5],
    "rkt": [15],
    "ml": [15],
    "sh": [15],
}


def test_each_step_gets_upstreams_limit_scaled_with_the_samples():
    assert set(UPSTREAM_STEP_LIMITS) == set(SECOND_STATUS)
    libs = programs.Libraries(typescript="/nonexistent/typescript")  # tsc's path, unused
    checked = 0
    for lang, limits in UPSTREAM_STEP_LIMITS.items():
        if not toolchain_here(lang):
            continue
        for sample_s, scale in ((30.0, 1.0), (60.0, 2.0), (6.0, 0.2)):
            made = programs.build(find(lang), "", "/nonexistent", sample_s, libs)
            got = [step["timeout_s"] for step in made.steps]
            assert got == pytest.approx([limit * scale for limit in limits]), (lang, sample_s)
        checked += 1
    assert checked


@pytest.mark.skipif(
    not (toolchain_here("js") and toolchain_here("cpp")), reason="no Node or g++ here"
)
@pytest.mark.parametrize("mode", XDIST_MODES)
def test_a_run_past_upstreams_step_limit_is_a_timeout(pytester, mode):
    """A right answer that first spends 3 s: JavaScript's run has a sixth of the sample's
    limit (upstream's 5 s of 30), C++'s run half (15 s), so with a 12 s limit the first times
    out (2 s) and the second passes (6 s)."""
    slow = {
        "js": "    if (!globalThis.spun) {\n        globalThis.spun = true;\n"
        "        const end = Date.now() + 3000;\n        while (Date.now() < end) {}\n"
        "    }\n    return x + y;\n}\n",
        "cpp": "    static bool spun = false;\n    if (!spun) {\n        spun = true;\n"
        "        auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);\n"
        "        while (std::chrono::steady_clock::now() < end) {}\n    }\n"
        "    return x + y;\n}\n",
    }
    replay = answers_replay(pytester.path / "slow.jsonl", slow)
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        f"{ADD}::HumanEval_53_add_js",
        f"{ADD}::HumanEval_53_add_cpp",
        "--codegen-timeout=12",
        "--codegen-reruns=0",
        "--codegen-results=r.jsonl",
        *mode,
        timeout=900,
    )
    result.assert_outcomes(passed=1, failed=1)
    records = read_results(pytester.path / "r.jsonl")
    assert {r["category"]: r["program_status"] for r in records} == {
        "js": "Timeout",
        "cpp": "OK",
    }


# Answers whose status upstream reads from a run's whole output (``subprocess.run``): a
# wrong Go answer that prints 9 MiB before go test's FAIL lines, a JavaScript run that says
# SyntaxError on stdout after 3,000 bytes, one whose assertion's message says SyntaxError
# (upstream looks for ERR_ASSERTION first), and an R run that says "unexpected" on stderr
# after 3,000 bytes. Each with the status MultiPL-E's evaluator gives it.
WHOLE_OUTPUT = [
    (
        "go",
        "    b := make([]byte, 3<<20)\n    for i := range b {\n        b[i] = 'x'\n    }\n"
        "    fmt.Print(string(b))\n    return x - y\n",
        "Exception",
    ),
    (
        "js",
        "    process.stdout.write('o'.repeat(3000));\n    console.log(' SyntaxError');\n"
        "    process.exit(1);\n}\n",
        "SyntaxError",
    ),
    ("js", "    return 'SyntaxError';\n}\n", "Exception"),
    (
        "r",
        "    message(strrep('e', 3000))\n    stop('unexpected answer')\n}\n",
        "SyntaxError",
    ),
]


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_a_status_reads_the_whole_output_where_upstreams_evaluator_does(pytester, mode):
    answers = [(lang, text, want) for lang, text, want in WHOLE_OUTPUT if toolchain_here(lang)]
    replay = pytester.path / "whole.jsonl"
    index: dict[str, int] = {}
    lines = []
    for lang, text, _ in answers:
        index[lang] = index.get(lang, -1) + 1
        sample = {"task_id": f"HumanEval_53_add_{lang}", "sample_index": index[lang]}
        lines.append(json.dumps({**sample, "completion": text}) + "\n")
    replay.write_text("".join(lines))
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        *(f"{ADD}::HumanEval_53_add_{lang}" for lang in index),
        "--codegen-samples=2",
        "--codegen-reruns=0",
        "--codegen-results=r.jsonl",
        *mode,
        timeout=900,
    )
    records = read_results(pytester.path / "r.jsonl")
    got = {(r["category"], r["sample_index"]): r.get("program_status") for r in records}
    seen: dict[str, int] = {}
    for lang, _, want in answers:
        seen[lang] = seen.get(lang, -1) + 1
        assert got[(lang, seen[lang])] == want, (lang, seen[lang])
    assert result.ret == 1


# A body only Rust's 2021 edition compiles (`try_into` is in its prelude, not in 2015's).
RUST_2021_ONLY = "    let sum: i64 = (x + y).try_into().unwrap();\n    sum as {type}\n}}\n"


@pytest.mark.skipif(not toolchain_here("rs"), reason="no Rust toolchain here")
@pytest.mark.parametrize("mode", XDIST_MODES)
def test_rust_compiles_in_the_edition_of_each_benchmarks_evaluator(pytester, mode):
    """MultiPL-E's evaluator runs `rustc FILE -o BIN`: rustc's default edition, 2015, where
    this body does not compile (`SyntaxError`, as upstream says); HumanEval-X's Cargo.toml
    asks for 2021, where it does."""
    replay = pytester.path / "editions.jsonl"
    replay.write_text(
        json.dumps(
            {"task_id": "HumanEval_53_add_rs", "completion": RUST_2021_ONLY.format(type="isize")}
        )
        + "\n"
        + json.dumps({"task_id": "Rust/0", "completion": RUST_2021_ONLY.format(type="i32")})
        + "\n"
    )
    hx_rust = FIXTURES / "humaneval_x" / "humaneval_rust.jsonl"
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        f"{ADD}::HumanEval_53_add_rs",
        f"{hx_rust}::Rust_0",
        "--codegen-results=r.jsonl",
        *mode,
        timeout=900,
    )
    result.assert_outcomes(passed=1, failed=1)
    by_task = {r["task_id"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert by_task["HumanEval_53_add_rs"]["program_status"] == "SyntaxError", by_task
    assert "no method named `try_into`" in by_task["HumanEval_53_add_rs"]["error"], by_task
    assert by_task["Rust/0"]["outcome"] == "passed", by_task


# Programs whose global names meet the default library's, and some that do not: tsc's exit
# status of each, and ours, must be the same. Skipping the library's check would pass the
# first two, whose errors tsc reports in the library's own files.
TOUCHING_THE_LIBRARY = {
    "merges": "interface Iterator<T> { next(x: number): string; }\n",
    "conflicts": "function escape(s: string): number { return 1; }\n",
    "hoisted": "if (true) { var name = 1; }\n",
    "block-scoped": "let name = 1;\n",
    "namespace": "namespace N { export const x = 1; }\nclass Map2 {}\n",
    "module": "export const name = 3;\n",
    "type-error": "function f(): number { return 'one'; }\n",
    "clean": "function f(x: number): number { return x + 1; }\nf(2);\n",
}


@pytest.mark.skipif(not toolchain_here("ts"), reason="no TypeScript toolchain here")
def test_typescript_compiles_as_tsc_whether_a_program_touches_the_library_or_not(tmp_path):
    suite = tmp_path / "add.jsonl"
    suite.write_text(
        "".join(x + "\n" for x in ADD.read_text().splitlines() if '"HumanEval_53_add_ts"' in x)
    )
    (problem,) = load_multipl_e(suite, "add")
    libs = MultiPLEKind().libraries(problem)
    assert libs.typescript_driver and Path(libs.typescript_driver).is_file()
    tool = find("ts")
    tsc = [tool.tools["node"], str(Path(libs.typescript) / "lib" / "tsc.js"), "--target", "esnext"]
    limits = language_limits(Limits(timeout_s=60.0, memory_mb=1024), "ts")
    ours, theirs = {}, {}
    for name, program in TOUCHING_THE_LIBRARY.items():
        (tmp_path / f"{name}.ts").write_text(program)
        done = subprocess.run([*tsc, f"{name}.ts"], cwd=tmp_path, capture_output=True)
        theirs[name] = done.returncode
        with Sandbox(limits, reads=tool.roots + libs.trees()) as box:
            made = programs.build(tool, program, str(box.workdir), 50.0, libs, "multipl-e")
            assert made.steps[0]["argv"][1] == libs.typescript_driver
            run = box.load((SUPERVISOR,), "run")
            (step,) = run(made.files, made.steps[:1], 50.0, 4096)
        ours[name] = step["exit_code"]
    assert ours == theirs
    assert theirs["merges"] and theirs["conflicts"] and not theirs["clean"]


@pytest.mark.skipif(not toolchain_here("java"), reason="no Java toolchain here")
@pytest.mark.parametrize("archive_readable", [True, False], ids=["granted", "not-granted"])
def test_a_java_samples_javac_maps_the_archive_of_its_classes(tmp_path, archive_readable):
    """Java samples compile with javac's classes from an archive made once per host, which
    their sandbox may read. Forced sharing (``-Xshare:on``) makes a javac that cannot map it
    fail, so the sandbox without the grant shows the check can fail."""
    suite = tmp_path / "add.jsonl"
    suite.write_text(
        "".join(x + "\n" for x in ADD.read_text().splitlines() if '"HumanEval_53_add_java"' in x)
    )
    (problem,) = load_multipl_e(suite, "add")
    libs = MultiPLEKind().libraries(problem)
    assert libs.javac_archive == javac_archive() and Path(libs.javac_archive).is_file()
    program = problem.prompt + "        return x + y;\n" + problem.tests
    tool = find("java")
    limits = language_limits(Limits(timeout_s=60.0, memory_mb=1024), "java")
    reads = tool.roots + (libs.trees() if archive_readable else (libs.jars[0],))
    Zygote.shutdown()  # a launcher of this process may have been granted more already
    with Sandbox(limits, reads=reads) as box:
        made = programs.build(tool, program, str(box.workdir), 50.0, libs, "multipl-e")
        javac = made.steps[0]["argv"]
        assert f"-J-XX:SharedArchiveFile={libs.javac_archive}" in javac
        made.steps[0]["argv"] = [javac[0], "-J-Xshare:on", *javac[1:]]
        steps = box.load((SUPERVISOR,), "run")(made.files, made.steps, 50.0, 4096)
    codes = [step["exit_code"] for step in steps]
    assert codes == ([0, 0] if archive_readable else [1]), steps


@pytest.mark.skipif(not toolchain_here("java"), reason="no Java toolchain here")
def test_without_a_cache_to_keep_javacs_archive_java_compiles_as_before(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(blocked / "cache"))  # cannot be made
    assert javac_archive.__wrapped__() == ""
    libs = programs.Libraries(javac_archive="")
    program = "public class Problem { public static void main(String[] a) {} }\n"
    made = programs.build(find("java"), program, str(tmp_path), 30.0, libs, "multipl-e")
    assert not any("SharedArchiveFile" in arg for arg in made.steps[0]["argv"])


@pytest.mark.skipif(
    not (toolchain_here("ts") and toolchain_here("cpp")), reason="no TypeScript or C++ here"
)
def test_without_a_cache_to_keep_them_tsc_and_gxx_go_without_what_they_record(
    tmp_path, monkeypatch
):
    """The library's global names and precompiled headers, like javac's archive, only make
    compiles faster: where the cache cannot be written, programs compile without them."""
    installed = typescript()  # the compiler itself is needed, and installed already
    monkeypatch.setattr(libraries, "typescript", lambda: installed)
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(blocked / "cache"))  # cannot be made
    assert typescript_driver.__wrapped__() == ""
    assert cpp_prelude.__wrapped__("-std=c++17", ("#include<vector>",)) == ""


@pytest.mark.skipif(shutil.which("mvn") is None, reason="no Maven here")
def test_javatuples_is_fetched_whatever_home_says(tmp_path, monkeypatch):
    """Maven keeps its local repository in the account's home as Java reads it, not in
    ``$HOME``; pytest's own ``pytester`` (and many CI set-ups) set ``$HOME`` elsewhere. The
    jar must be found either way."""
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
    jar = Path(javatuples.__wrapped__())
    assert jar.name == "javatuples-1.2.jar" and jar.stat().st_size > 10_000


@pytest.mark.skipif(not toolchain_here("cpp"), reason="no C++ toolchain here")
def test_a_program_stopped_for_writing_too_much_says_so(pytester):
    """A right answer that prints past the sandbox's file-size limit is stopped by SIGXFSZ
    (upstream, with no limit, would say OK: a documented difference); its message names the
    limit rather than only the signal's exit status."""
    suite = add_row(pytester.path, "cpp")
    flood = '    for (int i = 0; i < 800000; i++) printf("%0100d\\n", i);\n    return x + y;\n}\n'
    replay = answers_replay(pytester.path / "flood.jsonl", {"cpp": flood})
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}", str(suite), "--codegen-results=r.jsonl", timeout=300
    )
    result.assert_outcomes(failed=1)
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["program_status"] == "Exception"
    assert "exit status -25 (SIGXFSZ: it wrote past the 64 MiB" in record["error"], record["error"]
