"""Building a benchmark from code (--codegen-build): CodeBenchGen's pipeline end to end.

A loopback model (tests/fake_builder.py, real HTTP in the OpenAI chat format) answers the
build's prompts from fixtures/build/answers.py; the fragments are fixtures/build/src.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, XDIST_MODES
from fake_builder import BuildModel

from pytest_codegen.build import checks, mutants, prompts
from pytest_codegen.build.inputs import Fragment

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
    assert prompts.render("sandbox", "ours", templates, fields) == "ours"
    assert prompts.render("tests", "ours", templates, fields) == (
        "House rules first.\nours\n(target: double)"
    )
