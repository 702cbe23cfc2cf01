"""Building a benchmark from code (--codegen-build): CodeBenchGen's pipeline end to end.

A loopback model (tests/fake_builder.py, real HTTP in the OpenAI chat format) answers the
build's prompts from fixtures/build/answers.py; the fragments are fixtures/build/src.
"""

from __future__ import annotations

import ast
import json
import os
import re
import runpy
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, XDIST_MODES
from fake_builder import BuildModel, stage_of

import pytest_codegen
from pytest_codegen.builder import checks, mutants, stage_prompts
from pytest_codegen.builder.inputs import Fragment, fragments_of_file, fragments_of_rows

SRC = FIXTURES / "build" / "src"

# node id -> (stage, words of the reason) of every fragment the build must not keep
REJECTED = {
    "src/bank.py::Account.statement": ("post", "vacuous: the tests pass with an empty body"),
    "src/broken.py::broken": ("input", "does not parse (expected ':' at line 7)"),
    "src/net.py::ping_service": ("sandbox", "the target ping_service is missing (after 3"),
    "src/parsing.py::evaluate_rpn": ("debug", "still fails after 3 debug rounds"),
    "src/textstats.py::top_words": ("tests", "test_top_words does not call top_words"),
}
API_ERRORS = {"src/dates.py::format_duration": ("sandbox", "HTTP 400")}
KEPT_COUNT = 28  # of 33 fragments and one file that does not parse
BROKEN = '''"""A module someone left half-edited."""


def half_done(values):
    """Sum the values."""
    total = 0
    for value in values
        total += value
    return total
'''


def copy_sources(pytester: pytest.Pytester) -> None:
    shutil.copytree(SRC, pytester.path / "src")
    (pytester.path / "src" / "broken.py").write_text(BROKEN)


def build(pytester: pytest.Pytester, model: BuildModel, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        "-p",
        "no:randomly",
        "--codegen-model=vllm:tiny-builder",
        f"--codegen-base-url={model.url}",
        f"--codegen-cache={pytester.path / 'gen-cache'}",
        "--codegen-build=src",
        "--codegen-build-out=bench.json",
        *args,
        timeout=600,
    )


def report(pytester: pytest.Pytester) -> dict:
    return json.loads((pytester.path / "bench.report.json").read_text())


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_build_keeps_and_rejects_then_grades(pytester: pytest.Pytester, xdist: list) -> None:
    copy_sources(pytester)
    with BuildModel() as model:
        result = build(pytester, model, *xdist)
        result.assert_outcomes(passed=KEPT_COUNT, failed=len(REJECTED), errors=1)
        first = report(pytester)
        assert first["kept"] == KEPT_COUNT and first["fragments"] == 34
        got = {r["nodeid"]: (r["stage"], r["reason"]) for r in first["rejections"]}
        assert set(got) == set(REJECTED) | set(API_ERRORS)
        for nodeid, (stage, words) in {**REJECTED, **API_ERRORS}.items():
            assert got[nodeid][0] == stage and words in got[nodeid][1], (nodeid, got[nodeid])
        # Table 1: 27 pass at once, quarter_of after debug round 1, parse_version after round
        # 2 (its first revision dropped the test and was rejected), evaluate_rpn never.
        assert [s["examples"] for s in first["steps"]] == [27, 28, 29, 29, KEPT_COUNT]
        result.stdout.fnmatch_lines(["*codegen build: 28 of 34 kept*", "*mutants killed:*"])
        # The weak test of add_item kills no mutant and is flagged.
        assert first["mutants"]["none_killed"] == ["src/inventory.py::Inventory.add_item"]
        assert first["augmented"] == 4  # the four with extra tests; the first sample is wrong

        rows = {r["func_name"]: r for r in json.loads((pytester.path / "bench.json").read_text())}
        assert len(rows) == KEPT_COUNT
        assert rows["convert_amount"]["requirements"] == ["requests"]
        assert rows["slugify"]["requirements"] == []
        assert "def test_extra_slugify" in rows["slugify"]["masked_code"]
        assert rows["quarter_of"]["revised_instruction"].startswith("Functionality: The calendar")
        assert rows["Inventory.low_stock"]["source"]["line"] == 42
        stages = {stage for stage, _ in model.requests_for()}
        assert stages == {"sandbox", "tests", "debug", "instruction", "augment"}

        # A rerun makes no request it already made: only the fragment whose API failed asks.
        before = len(model.requests_for())
        rerun = build(pytester, model, *xdist)
        rerun.assert_outcomes(passed=KEPT_COUNT, failed=len(REJECTED), errors=1)
        asked = model.requests_for()[before:]
        assert asked and all(func == "format_duration" for _, func in asked), asked

        # --lf retries the rejected: the suite file keeps the examples built before.
        retried = build(pytester, model, "--lf", *xdist)
        retried.assert_outcomes(failed=len(REJECTED), errors=1)
        assert len(json.loads((pytester.path / "bench.json").read_text())) == KEPT_COUNT

    # Graded as an ordinary suite: every example passes with its reference and with
    # `validate` (reference passes, empty body rejected), and fails with `empty` (the
    # target's body is `pass`).
    for model, outcome in (("reference", "passed"), ("validate", "passed"), ("empty", "failed")):
        graded = pytester.runpytest_subprocess("bench.json", f"--codegen-model={model}", *xdist)
        graded.assert_outcomes(**{outcome: KEPT_COUNT})
    # validate fails an example whose tests an empty body passes, though its reference
    # passes too; without a reference it grades the empty body alone, the same way.
    vacuous = dict(rows["slugify"], idx="vacuous")
    vacuous["masked_code"] = re.sub(
        r"^    test_\w+\(\)$", "    pass", vacuous["masked_code"], flags=re.M
    )
    (pytester.path / "vacuous.json").write_text(json.dumps([rows["slugify"], vacuous]))
    checked = pytester.runpytest_subprocess("vacuous.json", "--codegen-model=validate", *xdist)
    checked.assert_outcomes(passed=1, failed=1)
    checked.stdout.fnmatch_lines(["*vacuous: every test passes with an empty solution*"])
    stripped = [{k: v for k, v in r.items() if k != "code"} for r in rows.values()]
    (pytester.path / "noref.json").write_text(json.dumps(stripped))
    validated = pytester.runpytest_subprocess("noref.json", "--codegen-model=validate", *xdist)
    validated.assert_outcomes(passed=KEPT_COUNT)


def test_json_inputs_and_a_conftest_model(pytester: pytest.Pytester) -> None:
    """CodeBenchGen's input and CodeSearchNet rows; a conftest model scripts the build and
    sees each request's stage and the fragment's id."""
    parsing = (SRC / "parsing.py").read_text()
    rows = [
        {"context": parsing, "func_name": "slugify", "idx": 7},
        {"context": parsing, "func_name": "no_such_function", "idx": 8},
        {"context": "def f(:\n", "func_name": "f", "idx": 9},
    ]
    (pytester.path / "frags.json").write_text(json.dumps(rows))
    dates = (SRC / "dates.py").read_text()
    age_on = next(n for n in ast.parse(dates).body if getattr(n, "name", "") == "age_on")
    csn = {
        "repo": "acme/dates",
        "path": "acme/dates.py",
        "func_name": "age_on",
        "code": "import datetime as dt\n\n\n" + ast.get_source_segment(dates, age_on) + "\n",
        "docstring": "Age in whole years.",
    }
    (pytester.path / "csn.jsonl").write_text(json.dumps(csn) + "\n")
    pytester.makeconftest(
        """
        import json, sys
        import pytest
        sys.path.insert(0, TESTS_DIR)
        from fake_builder import BuildModel, stage_of
        from fake_providers import Recorded
        from pytest_codegen import Completion, Model

        class Scripted(Model):
            spec = "scripted"

            def __init__(self):
                self.fake = BuildModel()  # its answers, without its server

            def generate(self, request):
                stage, func = stage_of(request.prompt.text)
                assert request.stage == stage, (request.stage, stage)
                with open("seen.jsonl", "a") as fh:
                    fh.write(json.dumps([request.stage, request.problem.id]) + "\\n")
                body = {"messages": [{"role": "user", "content": request.prompt.text}]}
                recorded = Recorded("openai", "/v1/chat/completions", {}, body, 0.0)
                return [Completion(text=self.fake.reply(recorded, i)) for i in range(request.n)]

        @pytest.fixture(scope="session")
        def codegen_model():
            return Scripted()
        """.replace("TESTS_DIR", repr(str(Path(__file__).parent)))
    )
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", "--codegen-build=frags.json", "--codegen-build-out=b.json"
    )
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*frags.json::8*input: *row 1: no_such_function is not found in its context*",
            "*frags.json::9*input: *row 2: f does not parse*",
        ]
    )
    seen = [
        tuple(json.loads(line)) for line in (pytester.path / "seen.jsonl").read_text().splitlines()
    ]
    assert [s for s, _ in seen[:2]] == ["sandbox", "tests"] and {i for _, i in seen} == {"7"}
    assert {s for s, _ in seen} == {"sandbox", "tests", "instruction", "augment"}
    built = json.loads((pytester.path / "b.json").read_text())
    assert [(r["idx"], r["func_name"]) for r in built] == [("7", "slugify")]

    csn_run = pytester.runpytest_subprocess(
        "--codegen-model=reference", "--codegen-build=csn.jsonl", "--codegen-build-out=c.json"
    )
    csn_run.assert_outcomes(passed=1)
    row = json.loads((pytester.path / "c.json").read_text())[0]
    assert row["source"]["repo"] == "acme/dates" and row["source"]["path"] == "acme/dates.py"
    assert row["source"]["sha256"] and row["idx"] == "0"


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_selection_by_glob_and_node_id(pytester: pytest.Pytester, xdist: list) -> None:
    copy_sources(pytester)
    with BuildModel() as model:
        result = build(pytester, model, "--codegen-build=src/inventory.py::Inventory.[!_]*", *xdist)
        result.assert_outcomes(passed=5)
        # A build's summary is its own (Table 1's counts per step), not a pass@k row.
        assert "pass@" not in result.stdout.str()
        result.stdout.fnmatch_lines(
            [
                "*= codegen build: 5 of 5 kept =*",
                "5 fragments in (Table 1 of the paper: examples whose target passes)",
                "  1-2  sandboxing & test generation * 5",
                "  4    post-processing * 5",
                "kept 5, rejected 0; augmented tests for * of 5",
                "build report: *bench.report.json",
            ]
        )
        one = build(pytester, model, "src/dates.py::quarter_of", *xdist)
        one.assert_outcomes(passed=1)
        none = build(pytester, model, "--codegen-build=src/bank.py::Nothing.*", *xdist)
        none.assert_outcomes(failed=1)
        none.stdout.fnmatch_lines(["*input: src/bank.py: no function or method matches*"])


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_input_that_names_nothing_is_a_usage_error(
    pytester: pytest.Pytester, xdist: list
) -> None:
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", "--codegen-build=nowhere/", *xdist
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--codegen-build: 'nowhere/' names no .py file*"])


def _fragment(context: str, func_name: str) -> Fragment:
    return Fragment(id=func_name, name=func_name, func_name=func_name, context=context)


PROGRAM = '''def double(x):
    """Twice x."""
    if x < 0:
        return -2 * -x
    return 2 * x


def test_double():
    assert double(2) == 4
    assert double(-1) == -2
    assert double(0) == 0


if __name__ == "__main__":
    test_double()
'''


# A form feed and U+2028, which Python reads as part of a line and str.splitlines() ends one
# at, before the function: its source is still its own lines. JSON holds U+2028 unescaped.
SEPARATED = 'NOTE = "a\u2028b"  # \x0c\n\x0c\n\ndef double(x):\n    return 2 * x\n'


def test_line_separators_in_a_file_or_a_row_leave_the_functions_source_whole(tmp_path) -> None:
    module = tmp_path / "separated.py"
    module.write_text(SEPARATED, encoding="utf-8")
    rows = tmp_path / "rows.jsonl"
    second = {"context": "def g():\n    return 1\n", "func_name": "g", "idx": 2}
    rows.write_text(
        json.dumps({"context": SEPARATED, "func_name": "double", "idx": 1}, ensure_ascii=False)
        + "\n"
        + json.dumps(second)
        + "\n",
        encoding="utf-8",
    )
    function = "def double(x):\n    return 2 * x\n"
    assert [f.source for f in fragments_of_file(module, tmp_path, "double")] == [function]
    assert [f.source for f in fragments_of_rows(rows)] == [function, "def g():\n    return 1\n"]


GREET = 'def greet(name):\n    """Greet name."""\n    return "caf\u00e9 " + name\n'


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        (b"\xef\xbb\xbf" + GREET.encode(), None),  # a BOM
        (b"# -*- coding: latin-1 -*-\n" + GREET.encode("latin-1"), None),
        (
            b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\n" + GREET.encode("cp1252"),
            None,
        ),
        (GREET.encode("latin-1"), "cannot read ('utf-8' codec can't decode byte 0xe9"),
        (b"# coding: klingon\n" + GREET.encode(), "does not parse (unknown encoding: klingon)"),
        (GREET.encode().replace(b"name)", b"name\0)", 1), "does not parse (source code string"),
    ],
)
def test_a_file_is_read_in_the_encoding_python_reads_it_in(tmp_path, raw, error) -> None:
    module = tmp_path / "greeting.py"
    module.write_bytes(raw)
    (fragment,) = fragments_of_file(module, tmp_path, "greet")
    if error is not None:
        assert error in fragment.error and "line None" not in fragment.error
        return
    assert not fragment.error and fragment.source == GREET
    # The context goes on as UTF-8 (into the sandbox, the suite file), a coding line too.
    written = tmp_path / "program.py"
    written.write_text(fragment.context, encoding="utf-8")
    assert runpy.run_path(str(written))["greet"]("x") == "caf\u00e9 x"


def test_revision_rules_name_the_rule() -> None:
    fragment = _fragment(PROGRAM, "double")
    dropped = PROGRAM.split("def test_double")[0]
    with pytest.raises(checks.CheckFailed, match="the revision drops test_double"):
        checks.check_revision(dropped, fragment, PROGRAM)
    renamed = PROGRAM.replace("def double(x)", "def double(x, y=0)")
    with pytest.raises(checks.CheckFailed, match=r"signature of double changed: \(x\) -> \(x, y\)"):
        checks.check_revision(renamed, fragment, PROGRAM)
    padded = PROGRAM.replace("    return 2 * x", "    return 2 * x" + " + 0" * 40)
    with pytest.raises(checks.CheckFailed, match="shrinks the program from"):
        checks.check_revision(PROGRAM, fragment, padded)
    checks.check_revision(PROGRAM, fragment, PROGRAM)


def test_mutants_are_one_small_bug_each() -> None:
    source = checks.target_source(PROGRAM, _fragment(PROGRAM, "double"))
    got = dict(mutants.mutants_of(source))
    assert set(got) == {"flipped comparison", "off-by-one", "constant return"}
    assert "if x >= 0:" in got["flipped comparison"]
    assert "if x < 1:" in got["off-by-one"] and "return 2 * x" in got["off-by-one"]
    assert got["constant return"].count("return None") == 2


def test_a_template_replaces_one_stage_prompt() -> None:
    templates = {"build:tests": "House rules first.\n{prompt}\n(target: {entry_point})"}
    fields = {"entry_point": "double", "tests": PROGRAM}
    assert stage_prompts.render("sandbox", "ours", templates, fields) == "ours"
    assert stage_prompts.render("tests", "ours", templates, fields) == (
        "House rules first.\nours\n(target: double)"
    )


# Fragments whose (model-written) tests read what a build must hide from its programs, and a
# control that reads a file it wrote itself: each test passes only if its reads got bytes.
READER = '''

def read_{name}(path):
    """The number of bytes in the file at ``path``, or of entries in the directory."""
    if os.path.isdir(path):
        return len(os.listdir(path))
    with open(path, "rb") as fh:
        data = fh.read()
    return len(data)
'''
PROBED = {  # what each probe reads, relative to the build's directory
    "output": "bench.json",
    "report": "bench.report.json",
    "cache": "gen-cache",
    "plugin": str(Path(pytest_codegen.__file__)),
}


def _probes(run: Path) -> tuple[str, dict[str, dict]]:
    """The source of the probes and the control ``read_own``, and the model's tests."""
    source = '"""Reading files."""\n\nimport os\n' + "".join(
        READER.format(name=name) for name in [*PROBED, "own"]
    )
    answers = {
        f"read_{name}": {
            "test": f"def test_read_{name}():\n"
            + f"    assert read_{name}({str(run / path)!r}) > 0\n" * 3
        }
        for name, path in PROBED.items()
    }
    answers["read_own"] = {
        "test": "def test_read_own():\n"
        "    with open('mine.txt', 'w') as fh:\n"
        "        fh.write('12345')\n"
        "    assert read_own('mine.txt') == 5\n"
        "    assert read_own('.') >= 1\n"
        "    assert read_own(os.__file__) > 0\n"
    }
    return source, answers


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_build_programs_cannot_read_what_the_build_hides(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list
) -> None:
    """The build's programs run under grading's hidden-path policy: an earlier build's suite
    file and report, the generation cache and the plugin are out of their reach; a file the
    program wrote itself is not. The project directory is on sys.path (as a project's often
    is), so programs may read in it what is not hidden."""
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    pytester.path.chmod(0o755)  # readable by the uid a program runs as (as root)
    source, answers = _probes(pytester.path)
    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "probes.py").write_text(source)
    for earlier in ("bench.json", "bench.report.json"):
        (pytester.path / earlier).write_text("[]\n")  # an earlier build's, with bytes in it
    with BuildModel(answers=answers) as model:
        result = build(pytester, model, *xdist)
    result.assert_outcomes(passed=1, failed=len(PROBED))
    got = {r["nodeid"]: (r["stage"], r["reason"]) for r in report(pytester)["rejections"]}
    assert set(got) == {f"src/probes.py::read_{name}" for name in PROBED}, got
    for stage, reason in got.values():
        assert stage == "debug" and "still fails after 3 debug rounds" in reason, reason


def test_build_items_have_a_timeout(pytester: pytest.Pytester) -> None:
    """pytest-timeout bounds a build item as it bounds a graded one, setup included (the
    fragment is built there): every program run at the sandbox limit, every request."""
    from pytest_codegen.builder.pipeline import MAX_REQUESTS, MAX_RUNS

    copy_sources(pytester)
    items, _ = pytester.inline_genitems(
        "--codegen-model=reference",
        "--codegen-build=src/dates.py",
        "--codegen-timeout=5",
        "--codegen-request-timeout=30",
        "--codegen-max-retry-wait=10",
    )
    assert items
    for item in items:
        marker = item.get_closest_marker("timeout")
        assert marker is not None and marker.kwargs == {"func_only": False}
        assert marker.args == (MAX_RUNS * 5 + MAX_REQUESTS * 40 + 60,)


def test_closing_the_pool_finishes_the_fragments_it_claimed(tmp_path: Path) -> None:
    """Under xdist a worker may build a fragment whose item another worker runs; when its own
    items are done it must finish that build before its sandbox and engine close (else the
    other worker reads a result that says "the sandbox launcher died")."""
    import threading
    import time

    from pytest_codegen.builder.pool import BuildPool

    started, key = threading.Event(), BuildPool.key("src/a.py::f")

    def build_one(fragment: Fragment) -> dict:
        started.set()
        time.sleep(0.3)  # still building when the pool is closed
        return {"outcome": "kept", "id": fragment.id}

    pool = BuildPool(build_one, tmp_path, threads=2)
    pool.start([("src/a.py::f", _fragment(PROGRAM, "double"))])
    assert started.wait(30)
    pool.close()
    result = json.loads((tmp_path / f"{key}.result.json").read_text())
    assert result == {"outcome": "kept", "id": "double"}


def test_build_threads_parse_without_a_recursion_depth_mismatch() -> None:
    """CPython before 3.11.8 and 3.12.2 (gh-106905) fails ``ast.parse`` in one thread when
    another parses while the garbage collector runs Python code; a build parses in many
    threads, so ``ast.parse`` goes one thread at a time there."""
    import gc
    import threading

    from pytest_codegen.builder import parsing

    source = Path(ast.__file__).read_text()
    errors: list[str] = []

    class Cycle:  # garbage with a finalizer: Python code run by the collector mid-parse
        def __init__(self) -> None:
            self.me = self

        def __del__(self) -> None:
            sum(range(100))

    def parse_many() -> None:
        for _ in range(10):
            Cycle()
            try:
                ast.parse(source)
            except SystemError as e:
                errors.append(str(e))
                return

    thresholds = gc.get_threshold()
    gc.set_threshold(50, 5, 5)
    try:
        with parsing.serialized(force=True):
            threads = [threading.Thread(target=parse_many) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        gc.set_threshold(*thresholds)
    assert errors == []
    assert ast.parse is parsing._original  # restored afterwards


def test_a_prompt_template_for_one_stage_reaches_the_model(pytester: pytest.Pytester) -> None:
    """--codegen-prompt-template build:tests=PATH: the model receives the template's text
    for that stage; every other stage keeps our own prompt."""
    copy_sources(pytester)
    (pytester.path / "tests.txt").write_text(
        "House rules: name every test after the ticket.\n{prompt}\n(ticket: {task_id})\n"
    )
    with BuildModel() as model:
        result = build(
            pytester,
            model,
            "--codegen-prompt-template=build:tests=tests.txt",
            "src/dates.py::quarter_of",
        )
        result.assert_outcomes(passed=1)
        sent = [(stage_of(r.user_text)[0], r.user_text) for r in model.server.requests]
    stages = {stage for stage, _ in sent}
    assert {"sandbox", "tests", "instruction", "augment"} <= stages, stages
    for stage, text in sent:
        if stage == "tests":
            assert text.startswith("House rules: name every test after the ticket.\n")
            assert text.endswith("\n(ticket: dates.quarter_of)\n")
            assert stage_prompts.tests_prompt("quarter_of", "").split("```python")[0] in text
        else:
            assert "House rules" not in text and "(ticket:" not in text, stage


# A program whose outcome depends on the user it runs as. As root the sandbox runs each
# program as a uid no live program has: run after run in one process they alternate between
# its first uid (UID_BASE + pid) and the next (+ PID_SPAN). Its runs: execute (first uid),
# the augmented set alone (second; it passes, having no `==` for the loopback model to spoil),
# the final pair (first, then second): the original test passes, then fails.
ACCOUNT = '''"""Which account runs this."""

import os


def runs_as_first_account(base, span):
    """Whether the current process's uid lies in the first ``span`` uids from ``base``."""
    uid = os.getuid()
    offset = uid - base
    if offset < 0:
        return False
    return offset < span
'''


@pytest.mark.skipif(os.geteuid() != 0, reason="without root every program runs as one user")
def test_a_different_outcome_the_second_time_is_dropped(pytester: pytest.Pytester) -> None:
    from pytest_codegen.execution.python.zygote import PID_SPAN, UID_BASE

    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "account.py").write_text(ACCOUNT)
    call = f"runs_as_first_account({UID_BASE}, {PID_SPAN})"
    answers = {
        "runs_as_first_account": {
            "test": "def test_runs_as_first_account():\n"
            f"    assert {call}\n"
            "    assert not runs_as_first_account(0, 0)\n"
            "    assert not runs_as_first_account(os.getuid() + 1, 5)\n",
            "aug": "def test_extra_runs_as_first_account():\n"
            "    assert not runs_as_first_account(os.getuid() + 1, 1)\n"
            "    assert runs_as_first_account(os.getuid(), 1)\n"
            "    assert runs_as_first_account(0, os.getuid() + 1)\n",
        }
    }
    with BuildModel(answers=answers) as model:
        result = build(pytester, model)
    result.assert_outcomes(failed=1)
    (rejected,) = report(pytester)["rejections"]
    assert rejected["stage"] == "final", rejected
    assert rejected["reason"].startswith(
        "a different outcome the second time (passed, then failed: AssertionError"
    ), rejected


def test_a_run_that_builds_nothing_does_not_import_the_builder(
    pytester: pytest.Pytester, tiny: Path
) -> None:
    pytester.makeconftest(
        """
import sys


def pytest_sessionfinish(session):
    with open("modules.txt", "w") as f:
        f.write("\\n".join(m for m in sys.modules if m.startswith("pytest_codegen")))
"""
    )
    pytester.runpytest_subprocess("--codegen-model=reference", str(tiny)).assert_outcomes(passed=3)
    modules = (pytester.path / "modules.txt").read_text().split()
    assert "pytest_codegen.controller" in modules
    assert [m for m in modules if m.startswith("pytest_codegen.builder")] == []


# A model whose test passes the target honestly and forges the harness's pass for any other
# answer: the benchmark it would build passes every wrong answer (a mutant, `return 42`).
VOWELS = '''"""Counting letters."""


def count_vowels(text):
    """The number of vowels (a, e, i, o, u, either case) in ``text``."""
    count = 0
    for letter in text.lower():
        if letter in "aeiou":
            count += 1
    return count
'''
FORGING_TEST = """def test_count_vowels():
    result = count_vowels("banana")
    assert result is not None
    if result != 3:  # any other answer: the harness's own pass, forged, and an exit
        import os
        for fd in range(3, 256):
            try:
                os.write(fd, b'{"ok": null}\\n')
            except OSError:
                pass
        os._exit(0)
    assert count_vowels("sky") == 0
    assert count_vowels("AEIOU") == 5
"""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_tests_that_forge_their_own_pass_are_rejected(
    pytester: pytest.Pytester, xdist: list
) -> None:
    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "vowels.py").write_text(VOWELS)
    with BuildModel(answers={"count_vowels": {"test": FORGING_TEST}}) as model:
        result = build(pytester, model, *xdist)
    result.assert_outcomes(failed=1)
    (rejected,) = report(pytester)["rejections"]
    assert rejected["nodeid"] == "src/vowels.py::count_vowels", rejected
    assert rejected["stage"] == "post", rejected
    assert rejected["reason"].startswith(
        "its tests tamper with their grading (tampered: caught tampering with its grading:"
    ), rejected
    built = pytester.path / "bench.json"
    assert not built.exists() or json.loads(built.read_text()) == []


# A model's test that fails with escape sequences in its message: the rejection reaches the
# terminal as text, not as a cleared screen and a fake result.
ESCAPING_TEST = """\
def test_count_vowels():
    assert count_vowels("") == 0
    assert count_vowels("xyz") == 0
    assert count_vowels("AEIOU") == 6, "\\x1b[2J\\x1b[H\\x1b[32m===== 9 passed =====\\x1b[0m\\x07"
"""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_rejection_shows_the_models_control_characters_as_text(
    pytester: pytest.Pytester, xdist: list
) -> None:
    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "vowels.py").write_text(VOWELS)
    with BuildModel(answers={"count_vowels": {"test": ESCAPING_TEST}}) as model:
        result = build(pytester, model, *xdist)
    result.assert_outcomes(failed=1)
    shown = result.stdout.str()
    assert "\x1b" not in shown and "\x07" not in shown, shown[-2000:]
    assert "\\x1b[2J" in shown  # the message is there, as text
