"""Usage errors: one line naming what is wrong and where, exit status 4, the same with and
without xdist (a worker's error must not vanish into "no samples were graded")."""

from __future__ import annotations

import json
import re

import pytest
from conftest import TINY, XDIST_MODES

# A suite's second line missing its closing brace, and one cut inside its prompt.
FIRST, SECOND = TINY.read_text().splitlines()[:2]
NO_BRACE = SECOND.removesuffix("}")
PROMPT_QUOTE = SECOND.index('"prompt": "') + len('"prompt": ')  # where its string starts
CUT_PROMPT = SECOND[: PROMPT_QUOTE + 10]
# A lone surrogate, which UTF-8 cannot encode, in a task id and in a prompt (JSON escapes).
SURROGATE_ID = FIRST.replace('"tiny/add"', '"tiny/\\ud800x"')
SURROGATE_PROMPT = FIRST.replace("Return the sum", "\\ud800 Return the sum")
# Two ids pytest could not tell apart (a collection error before, exit 2, 1 with -n 2).
ONE_NAME = FIRST.replace('"tiny/add"', '"a/b"') + "\n" + FIRST.replace('"tiny/add"', '"a b"')

CASES = {
    "unknown suite": (
        ["--codegen-model=reference", "--codegen-suite=nosuch"],
        "--codegen-suite: unknown suite 'nosuch'",
    ),
    "unknown model": (
        ["--codegen-model=nosuch-model", "tiny.jsonl"],
        "--codegen-model: unknown model 'nosuch-model'",
    ),
    "unknown provider": (
        ["--codegen-model=nosuch:m", "tiny.jsonl"],
        "--codegen-model nosuch:m: unknown provider 'nosuch'",
    ),
    # Found before anything is downloaded: v1 to v6 were graded as "v7".
    "a release the named suite does not have": (
        ["--codegen-model=reference", "--codegen-suite=livecodebench", "--codegen-release=v7"],
        "--codegen-release: v7 is not a release of livecodebench (release_v6 has v1 to v6)",
    ),
    "bad flag value": (
        ["--codegen-model=reference", "--codegen-samples=0", "tiny.jsonl"],
        "--codegen-samples: invalid value '0'",
    ),
    "bad stderr rule": (
        ["--codegen-model=reference", "--codegen-stderr-rule=maybe", "tiny.jsonl"],
        "--codegen-stderr-rule: invalid value 'maybe' (must be harness or off)",
    ),
    "unreadable suite file": (
        ["--codegen-model=reference", "broken.jsonl"],
        "broken.jsonl:2: not valid JSON (Expecting property name enclosed in double quotes, "
        "column 2)",
    ),
    # json would place it past the line's newline (line 2, column 1): it is where the line ends.
    "suite line missing its closing brace": (
        ["--codegen-model=reference", "cut.jsonl"],
        f"cut.jsonl:2: not valid JSON (Expecting ',' delimiter, column {len(NO_BRACE) + 1}: "
        "the line ends before its JSON value does)",
    ),
    # ... and call the newline inside the string an invalid control character.
    "suite line cut inside a string": (
        ["--codegen-model=reference", "cutstring.jsonl"],
        "cutstring.jsonl:2: not valid JSON (Unterminated string starting at column "
        f"{PROMPT_QUOTE + 1}: the line ends inside it)",
    ),
    # Not a crash in grading (an INTERNALERROR with -n 2), nor an error blamed on the code.
    "lone surrogate in a task id": (
        ["--codegen-model=reference", "surrogate_id.jsonl"],
        "surrogate_id.jsonl:1: field 'task_id' holds a lone surrogate (\\ud800), "
        "which UTF-8 cannot encode",
    ),
    "lone surrogate in a prompt": (
        ["--codegen-model=reference", "surrogate_prompt.jsonl"],
        "surrogate_prompt.jsonl:1: field 'prompt' holds a lone surrogate (\\ud800), "
        "which UTF-8 cannot encode",
    ),
    # zlib's own error, which no reader expected (an INTERNALERROR); its first line too.
    "gzip suite with corrupt data": (
        ["--codegen-model=reference", "corrupt.jsonl.gz"],
        "corrupt.jsonl.gz: cannot read (Error -3 while decompressing data: invalid block type)",
    ),
    "two task ids with one node name": (
        ["--codegen-model=reference", "one_name.jsonl"],
        "one_name.jsonl: problems 'a/b' and 'a b' map to the same node name 'a_b'",
    ),
    # pytest's own line, which xdist's controller never said (it exited 5 in silence).
    "a path that does not exist": (
        ["--codegen-model=reference", "nosuch.jsonl"],
        "file or directory not found: nosuch.jsonl",
    ),
    "a node id in a file that does not exist": (
        ["--codegen-model=reference", "nosuch.jsonl::tiny_add"],
        "file or directory not found: nosuch.jsonl::tiny_add",
    ),
    # A directory's id, as a built-in suite's is pasted (react::...): no sample is named so.
    "a node id in a directory": (
        ["--codegen-model=reference", "a::tiny_add[s0]"],
        "directory argument cannot contain :: selection parts: a::tiny_add[s0]",
    ),
    # pytest reads a "[" before any "::" as a path's parametrization: its line, which xdist's
    # controller never said either (it exited 5 in silence).
    "a path with brackets": (
        ["--codegen-model=reference", "runs[2]/tiny.jsonl::tiny_add[s0]"],
        "path cannot contain [] parametrization: runs[2]/tiny.jsonl::tiny_add[s0]",
    ),
    # Scored as one suite, each problem's samples counted once (the summary said 3 of 6).
    "one problem of one suite in two files": (
        ["--codegen-model=reference", "a/tiny.jsonl", "b/tiny.jsonl"],
        "b/tiny.jsonl: problem 'tiny/add' of suite 'tiny' is also in a/tiny.jsonl",
    ),
    # One file by two paths (c links to a): both were collected, every sample graded twice.
    "one suite file by two paths": (
        ["--codegen-model=reference", "a/tiny.jsonl", "c/tiny.jsonl"],
        "c/tiny.jsonl: problem 'tiny/add' of suite 'tiny' is also in a/tiny.jsonl (the same "
        "file by two paths: give it once)",
    ),
    # json's message for this one ends in "at", for the position it would add.
    "replay file with a raw tab in a string": (
        ["--codegen-model=replay:tabbed.jsonl", "tiny.jsonl"],
        "tabbed.jsonl:1: not valid JSON (Invalid control character, column 35)",
    ),
    # Not an INTERNALERROR (exit 3): a file another tool wrote in Latin-1.
    "replay file that is not UTF-8": (
        ["--codegen-model=replay:latin1.jsonl", "tiny.jsonl"],
        "latin1.jsonl: not UTF-8 (invalid continuation byte)",
    ),
    # A variable that expanded to nothing: a cache in ".", a run of no named suite.
    "an empty path value": (
        ["--codegen-model=reference", "--codegen-cache=", "tiny.jsonl"],
        "ERROR: --codegen-cache: empty value (give DIR)",
    ),
    "an empty suite name": (
        ["--codegen-model=reference", "--codegen-suite=", "tiny.jsonl"],
        "ERROR: --codegen-suite: empty value (give NAME)",
    ),
    # pytest's "not found" without xdist, "no tests ran" (exit 5) with it; nothing at all
    # for a named suite.
    "a suite file and no model": (
        ["tiny.jsonl::tiny_add"],
        "ERROR: tiny.jsonl: a benchmark suite, and no --codegen-model to grade it with",
    ),
    "a named suite and no model": (
        ["--codegen-suite=humaneval"],
        "ERROR: --codegen-suite=humaneval: a benchmark suite, and no --codegen-model",
    ),
}


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_usage_error_is_one_line_and_exit_4(pytester, tiny, case, xdist):
    args, expected = CASES[case]
    (pytester.path / "broken.jsonl").write_text(
        '{"task_id": "t/0", "prompt": "def f():\\n", "test": "", "entry_point": "f"}\n{oops\n'
    )
    (pytester.path / "cut.jsonl").write_text(f"{FIRST}\n{NO_BRACE}\n")
    (pytester.path / "cutstring.jsonl").write_text(f"{FIRST}\n{CUT_PROMPT}\n")
    (pytester.path / "surrogate_id.jsonl").write_text(SURROGATE_ID + "\n")
    (pytester.path / "surrogate_prompt.jsonl").write_text(SURROGATE_PROMPT + "\n")
    (pytester.path / "one_name.jsonl").write_text(ONE_NAME + "\n")
    # A gzip header, then a deflate block of a type that does not exist.
    (pytester.path / "corrupt.jsonl.gz").write_bytes(b"\x1f\x8b\x08\0\0\0\0\0\0\xff\x07")
    for copy in ("a", "b", "runs[2]"):
        (pytester.path / copy).mkdir()
        (pytester.path / copy / "tiny.jsonl").write_text(TINY.read_text())
    (pytester.path / "c").symlink_to(pytester.path / "a")
    (pytester.path / "tabbed.jsonl").write_text('{"task_id": "t/0", "completion": "\treturn 1"}\n')
    (pytester.path / "latin1.jsonl").write_bytes(b'{"task_id": "tiny/add", "completion": "\xe9"}\n')
    result = pytester.runpytest_subprocess(*args, *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    errors = [line for line in result.stderr.lines if line.startswith("ERROR: ")]
    assert len(errors) == 1, result.stderr.str()
    assert expected in errors[0]
    assert "no samples were graded" not in result.stdout.str()


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_broken_suite_found_in_a_directory_stops_the_run_before_grading(pytester, xdist):
    # Found by collecting a directory, not named: a collection error, as pytest makes any.
    # With -n 2 xdist graded the other suite and exited 1; a run without it grades nothing
    # and exits 2. Both now do the latter, with the same line.
    suites = pytester.mkdir("suites")
    (suites / "tiny.jsonl").write_text(TINY.read_text())
    (suites / "cut.jsonl").write_text(f"{FIRST.replace('tiny/add', 'cut/add')}\n{NO_BRACE}\n")
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", "suites", "--codegen-results=r.jsonl", *xdist
    )
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.INTERRUPTED, out + result.stderr.str()
    assert f"cut.jsonl:2: not valid JSON (Expecting ',' delimiter, column {len(NO_BRACE) + 1}" in (
        out
    )
    assert "Interrupted: 1 error during collection" in out
    assert "passed" not in out.splitlines()[-1]
    records = [json.loads(line) for line in (pytester.path / "r.jsonl").read_text().splitlines()]
    assert {r["outcome"] for r in records} == {"missing"}  # no sample graded
    # Asked to go on past collection errors, both grade the rest and fail the run.
    continued = pytester.runpytest_subprocess(
        "--codegen-model=reference", "suites", "--continue-on-collection-errors", *xdist
    )
    assert continued.ret == pytest.ExitCode.TESTS_FAILED
    continued.assert_outcomes(passed=3, errors=1)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_model_whose_completion_is_not_text_is_shown_as_its_error(pytester, tiny, xdist):
    # A bug in the model, not the sample's failure: its API error names what it returned,
    # never an INTERNALERROR that hides it, nor a crash of the sample's.
    pytester.makeconftest("""
        import pytest
        from pytest_codegen import Completion, Model

        class Broken(Model):
            spec = "broken"

            def generate(self, request):
                return [Completion(text=12345) for _ in request.sample_indices]

        @pytest.fixture(scope="session")
        def codegen_model():
            return Broken()
    """)
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", "tiny.jsonl", "-k", "tiny_add", *xdist
    )
    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*model API error: Broken.generate returned a Completion whose text is of type int,"
            " not str*"
        ]
    )


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_without_a_model_the_projects_own_tests_run_as_before(pytester, tiny, xdist):
    """No model: a test module, a JSON file that is no suite and an ini file's suite are
    left to pytest, which runs the tests (only suites named on the command line need one)."""
    pytester.makeini("[pytest]\ncodegen_suite = humaneval\n")
    pytester.makepyfile(test_own="def test_one():\n    pass\n")
    (pytester.path / "data.json").write_text('{"a": 1}\n')
    result = pytester.runpytest_subprocess("test_own.py", *xdist)
    result.assert_outcomes(passed=1)
    result = pytester.runpytest_subprocess("data.json", *xdist)
    assert "benchmark suite" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("bad", ["cut.jsonl", "cat/bad.test.js"])
def test_a_malformed_suite_in_a_directory_ends_the_run_with_the_same_lines_with_xdist(
    pytester, monkeypatch, bad
):
    # pytest's short summary named the file alone without xdist ("ERROR suites/cut.jsonl")
    # and added the reason with -n 2, where the report crosses from a worker as text.
    suites = pytester.mkdir("suites")
    (suites / "tiny.jsonl").write_text(TINY.read_text())
    (suites / "cut.jsonl").write_text(f"{FIRST.replace('tiny/add', 'cut/add')}\n{NO_BRACE}\n")
    (suites / "cat").mkdir()
    # A React test file in Latin-1.
    (suites / "cat" / "bad.test.js").write_bytes(b'test("\xe9", () => expect(1).toBe(1));\n')
    (suites / ("cat" if bad == "cut.jsonl" else "cut.jsonl")).rename(pytester.path / "aside")
    monkeypatch.setenv("COLUMNS", "400")  # the summary's reason uncut
    endings = []
    for xdist in ([], ["-n", "2"]):
        result = pytester.runpytest_subprocess("--codegen-model=reference", "suites", *xdist)
        assert result.ret == pytest.ExitCode.INTERRUPTED, result.stdout.str()
        lines = result.stdout.lines
        summary = lines[lines.index(next(x for x in lines if "short test summary" in x)) :]
        endings.append([re.sub(r" in [0-9.]+s", "", line).strip("= ") for line in summary])
    plain, with_xdist = endings
    assert plain == with_xdist
    (error,) = [line for line in plain if line.startswith("ERROR ")]
    reason = "not valid JSON" if bad == "cut.jsonl" else "cannot read ('utf-8' codec"
    assert error.startswith(f"ERROR suites/{bad} - ") and reason in error, error
