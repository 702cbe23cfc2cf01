"""Collection, node ids and selection: what users paste back must rerun what they meant."""

from __future__ import annotations

import gc
import json
import re

import pytest
from conftest import TINY, XDIST_MODES, outcomes_by_node, read_results, write_replay

from pytest_codegen.problems import sanitize_node_name


def assert_ran(result, nodeid: str) -> None:
    """-v prints "<id> PASSED" plainly and "[gw0] ... PASSED <id>" under xdist."""
    assert any(nodeid in line and "PASSED" in line for line in result.stdout.lines), nodeid


def test_ordinary_run_is_unchanged(pytester, tiny):
    pytester.makepyfile(test_plain="def test_ok(): pass")
    # Without --codegen-model a suite file is just a file: nothing is collected from it.
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)
    assert "pass@" not in result.stdout.str()


def test_items_and_node_ids(pytester, tiny):
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", str(tiny), "--codegen-samples=2", "--collect-only", "-q"
    )
    lines = [ln for ln in result.stdout.lines if "::" in ln]
    assert lines == [
        "tiny.jsonl::tiny_add[s0]",
        "tiny.jsonl::tiny_add[s1]",
        "tiny.jsonl::tiny_reverse_words[s0]",
        "tiny.jsonl::tiny_reverse_words[s1]",
        "tiny.jsonl::tiny_Counter[s0]",
        "tiny.jsonl::tiny_Counter[s1]",
    ]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_pasted_node_ids_select(pytester, tiny, xdist):
    base = ["--codegen-model=reference", "--codegen-samples=3", *xdist]
    one = pytester.runpytest_subprocess(*base, "tiny.jsonl::tiny_add[s1]", "-v")
    one.assert_outcomes(passed=1)
    assert_ran(one, "tiny.jsonl::tiny_add[s1]")
    problem = pytester.runpytest_subprocess(*base, "tiny.jsonl::tiny_Counter")
    problem.assert_outcomes(passed=3)
    by_category = pytester.runpytest_subprocess(
        *base, str(tiny), "-k", "text", "--codegen-results=r.jsonl"
    )
    by_category.assert_outcomes(passed=3, deselected=6)
    assert set(outcomes_by_node(pytester.path / "r.jsonl")) == {
        f"tiny.jsonl::tiny_reverse_words[s{i}]" for i in range(3)
    }


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_conftest_overrides_the_model_fixture(pytester, tiny, xdist):
    # The documented recipe (docs/howto/extend.md): a conftest.py's codegen_model writes every
    # sample, here the reference for even samples and a wrong body for odd ones. Results and
    # the summary name its model (its spec), not --codegen-model's, which it overrides.
    pytester.makeconftest("""
        import pytest
        from pytest_codegen.models.base import Completion, Model

        class Alternating(Model):
            spec = "alternating"
            def generate(self, request):
                return [Completion(text=request.problem.reference if i % 2 == 0
                                   else "    return None\\n")
                        for i in request.sample_indices]

        @pytest.fixture(scope="session")
        def codegen_model():
            return Alternating()
    """)
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference",
        str(tiny),
        "--codegen-samples=2",
        "--codegen-results=r.jsonl",
        *xdist,
    )
    result.assert_outcomes(passed=3, failed=3)
    assert {r["model"] for r in read_results(pytester.path / "r.jsonl")} == {"alternating"}
    result.stdout.fnmatch_lines(["*codegen: pass@k of alternating on tiny*"])
    outcomes = outcomes_by_node(pytester.path / "r.jsonl")
    assert len(outcomes) == 6
    assert {node for node, outcome in outcomes.items() if outcome == "passed"} == {
        f"tiny.jsonl::{p}[s0]" for p in ("tiny_add", "tiny_reverse_words", "tiny_Counter")
    }


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_conftest_models_failure_is_the_samples_api_error(pytester, tiny, xdist, monkeypatch):
    # A local model that raises (an out-of-memory on its device, a bug) or answers with
    # something that is not a Completion never wrote the sample: it is an API error, left
    # out of pass@k and written again by --codegen-resume, not a crashed sample scored 0.
    pytester.makeconftest("""
        import os
        import pytest
        from pytest_codegen.models.base import Completion, Model

        class Flaky(Model):
            spec = "flaky"
            def generate(self, request):
                if os.environ.get("FLAKY_FIXED"):
                    return [Completion(text=request.problem.reference)]
                if request.sample_indices[0] == 1:
                    raise RuntimeError("device out of memory\\nmore detail")
                if request.sample_indices[0] == 2:
                    return [request.problem.reference]
                return [Completion(text=request.problem.reference)]

        @pytest.fixture(scope="session")
        def codegen_model():
            return Flaky()
    """)
    args = ("--codegen-model=reference", str(tiny), "--codegen-samples=3")
    result = pytester.runpytest_subprocess(*args, "--codegen-results=r.jsonl", *xdist)
    result.assert_outcomes(passed=3, errors=6)
    records = {r["nodeid"]: r for r in read_results(pytester.path / "r.jsonl")}
    raised = records["tiny.jsonl::tiny_add[s1]"]
    assert raised["outcome"] == "api_error"
    assert raised["error"] == (
        "Flaky.generate raised RuntimeError: device out of memory (conftest.py:11)"
    )
    wrong_type = records["tiny.jsonl::tiny_add[s2]"]
    assert wrong_type["outcome"] == "api_error"
    assert wrong_type["error"] == "Flaky.generate returned a str where a Completion belongs"
    assert sorted(r["outcome"] for r in records.values()) == ["api_error"] * 6 + ["passed"] * 3
    # pass@1 over the samples written: every one passed.
    result.stdout.re_match_lines([r"tiny\s+\(all\)\s+3\s+9\s+3\s+.*\s6\s+0\s+1\.000\b"])

    monkeypatch.setenv("FLAKY_FIXED", "1")
    again = pytester.runpytest_subprocess(
        *args, "--codegen-results=r.jsonl", "--codegen-resume", *xdist
    )
    again.assert_outcomes(passed=6)
    final = {r["nodeid"]: r["outcome"] for r in read_results(pytester.path / "r.jsonl")}
    assert set(final.values()) == {"passed"} and len(final) == 9


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_conftest_completion_without_text_is_the_samples_api_error(pytester, tiny, xdist):
    # A Completion whose text is None or bytes is no answer: an API error, not a sample
    # crashed in grading (None) or the run stopped by an internal error (bytes).
    pytester.makeconftest("""
        import pytest
        from pytest_codegen.models.base import Completion, Model

        class Raw(Model):
            def generate(self, request):
                text = request.problem.reference
                return [Completion(text=[None, text.encode(), text][request.sample_indices[0]])]

        @pytest.fixture(scope="session")
        def codegen_model():
            return Raw()
    """)
    args = (str(tiny), "-k", "add", "--codegen-samples=3", "--codegen-results=r.jsonl")
    result = pytester.runpytest_subprocess("--codegen-model=mine", *args, *xdist)
    result.assert_outcomes(passed=1, errors=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    records = {r["sample_index"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert [records[i]["outcome"] for i in range(3)] == ["api_error", "api_error", "passed"]
    assert records[0]["error"] == (
        "Raw.generate returned a Completion whose text is of type NoneType, not str"
    )
    assert records[1]["error"].endswith("whose text is of type bytes, not str")


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_builtin_suite_ids_can_be_pasted(pytester, xdist):
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", "humaneval::HumanEval_7[s0]", "-v", *xdist
    )
    result.assert_outcomes(passed=1)
    assert_ran(result, "humaneval::HumanEval_7[s0]")


# Of tiny with two samples: add[s1], reverse_words[s0] and Counter[s0] fail, Counter[s1] has
# no answer (skipped).
HALF_WRONG = [
    {"task_id": "tiny/add", "completion": "    return a + b\n"},
    {"task_id": "tiny/add", "completion": "    return a - b\n"},
    {"task_id": "tiny/reverse_words", "completion": "    return s\n"},
    {"task_id": "tiny/reverse_words", "completion": "    return ' '.join(reversed(s.split()))\n"},
    {"task_id": "tiny/Counter", "completion": "    pass\n"},
]
HALF_WRONG_FAILED = ("tiny_add[s1]", "tiny_reverse_words[s0]", "tiny_Counter[s0]")


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_last_failed_reruns_only_failed_samples(pytester, tiny, xdist):
    replay = write_replay(pytester.path / "replay.jsonl", HALF_WRONG)
    base = [f"--codegen-model=replay:{replay}", "--codegen-samples=2", str(tiny), *xdist]
    first = pytester.runpytest_subprocess(*base)
    first.assert_outcomes(passed=2, failed=3, skipped=1)
    again = pytester.runpytest_subprocess(*base, "--lf", "-v", "--codegen-results=r.jsonl")
    again.assert_outcomes(failed=3, deselected=3)
    assert set(outcomes_by_node(pytester.path / "r.jsonl")) == {
        f"tiny.jsonl::{name}" for name in HALF_WRONG_FAILED
    }


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_last_failed_reruns_the_failures_of_a_suite_outside_the_rootdir(
    pytester, monkeypatch, xdist
):
    # Ids of the suite outside are "../shared/other.jsonl::..."; --lf once skipped that file
    # whole when the suite inside the rootdir had failures too.
    project = pytester.mkdir("project")
    (project / "tiny.jsonl").write_text(TINY.read_text())
    (pytester.mkdir("shared") / "other.jsonl").write_text(TINY.read_text())
    replay = write_replay(pytester.path / "replay.jsonl", HALF_WRONG)
    monkeypatch.chdir(project)
    both = ["tiny.jsonl", "../shared/other.jsonl"]
    base = ["--rootdir=.", f"--codegen-model=replay:{replay}", "--codegen-samples=2", *xdist]
    pytester.runpytest_subprocess(*base, *both).assert_outcomes(passed=4, failed=6, skipped=2)
    for files in (both, both[1:]):
        results = project / f"r{len(files)}.jsonl"
        again = pytester.runpytest_subprocess(*base, *files, "--lf", f"--codegen-results={results}")
        failed = 3 * len(files)
        again.assert_outcomes(failed=failed, deselected=failed)
        assert set(outcomes_by_node(results)) == {
            f"{file}::{name}" for file in files for name in HALF_WRONG_FAILED
        }


def test_node_names_of_ascii_ids_are_as_they_were():
    # Users paste these back: an ASCII id's name must never change.
    assert [
        sanitize_node_name(task_id)
        for task_id in ("HumanEval/0", "Mbpp/2", "abc-1.2_x", "a::b[c] d", "__x__", "/", "")
    ] == ["HumanEval_0", "Mbpp_2", "abc-1.2_x", "a_b_c_d", "x", "problem", "problem"]


def test_ids_of_other_scripts_keep_their_letters_and_differ():
    assert sanitize_node_name("задача/один") == "задача_один"
    assert sanitize_node_name("tiny/ädd") == "tiny_ädd"
    # Emoji are no letters: the name keeps what it can and ends in a hash of the whole id,
    # the same in every run (pinned: pasted ids must keep working).
    assert sanitize_node_name("🙂/1") == "1-9ded927b"
    assert sanitize_node_name("🙃/1") == "1-3b5450f2"
    # A no-break space is dropped as a space is, and the hash tells the two apart.
    assert re.fullmatch("a_b-[0-9a-f]{8}", sanitize_node_name("a\u00a0b"))
    assert sanitize_node_name("a b") == "a_b"


# Task id -> its node name. They all became "problem" (and tiny/ädd tiny_dd): the suite was
# a collection error, exit 2 (1 with -n 2).
NON_ASCII_IDS = {
    "задача/один": "задача_один",
    "задача/два": "задача_два",
    "tiny/ädd": "tiny_ädd",
    "🙂/1": "1-9ded927b",
    "🙃/1": "1-3b5450f2",
}


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_non_ascii_ids_are_collected_graded_and_pasted_back(pytester, tiny, xdist):
    add = json.loads(tiny.read_text().splitlines()[0])
    rows = [{**add, "task_id": task_id} for task_id in NON_ASCII_IDS]
    suite = pytester.path / "unicode.jsonl"
    suite.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    base = ["--codegen-model=reference", "-v", *xdist]
    result = pytester.runpytest_subprocess(*base, str(suite), "--codegen-results=r.jsonl")
    result.assert_outcomes(passed=5)
    assert {r["task_id"]: r["nodeid"] for r in read_results(pytester.path / "r.jsonl")} == {
        task_id: f"unicode.jsonl::{name}[s0]" for task_id, name in NON_ASCII_IDS.items()
    }
    again = pytester.runpytest_subprocess(
        *base, "unicode.jsonl::задача_два[s0]", "unicode.jsonl::1-3b5450f2"
    )
    again.assert_outcomes(passed=2)
    assert_ran(again, "unicode.jsonl::задача_два[s0]")
    assert_ran(again, "unicode.jsonl::1-3b5450f2[s0]")
    by_name = pytester.runpytest_subprocess(*base, str(suite), "-k", "один or ädd")
    by_name.assert_outcomes(passed=2, deselected=3)
    assert_ran(by_name, "unicode.jsonl::задача_один[s0]")
    assert_ran(by_name, "unicode.jsonl::tiny_ädd[s0]")


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_ids_of_suites_outside_the_rootdir_are_distinct_and_pasted_back(
    pytester, tiny, xdist, monkeypatch
):
    # pytest's id of a file outside the rootdir named on the command line is empty, so two
    # such suites' samples shared ids ("::tiny_add[s0]"): one suite's records were lost and
    # the summary differed with -n 2. Their ids are their paths from the rootdir.
    shared = pytester.mkdir("shared")
    for name in ("a", "b"):
        (shared / f"{name}.jsonl").write_text(tiny.read_text())
    replay = write_replay(
        pytester.path / "replay.jsonl",
        [{"task_id": "tiny/add", "completion": "    return a - b\n"}],
    )
    pytester.mkdir("project").joinpath("pytest.ini").write_text("[pytest]\n")
    monkeypatch.chdir(pytester.path / "project")
    base = [f"--codegen-model=replay:{replay}", "--rootdir=.", "--codegen-results=r.jsonl"]
    result = pytester.runpytest_subprocess(*base, "../shared/a.jsonl", "../shared/b.jsonl", *xdist)
    result.assert_outcomes(failed=2, skipped=4)
    records = read_results(pytester.path / "project" / "r.jsonl")
    assert sorted((r["nodeid"], r["suite"]) for r in records) == [
        (f"../shared/{name}.jsonl::{problem}[s0]", name)
        for name in ("a", "b")
        for problem in ("tiny_Counter", "tiny_add", "tiny_reverse_words")
    ]
    result.stdout.fnmatch_lines(["a *(all)*3*3*0*1*", "b *(all)*3*3*0*1*"], consecutive=False)
    failed = sorted(line.split()[1] for line in result.stdout.lines if line.startswith("FAILED"))
    assert failed == ["../shared/a.jsonl::tiny_add[s0]", "../shared/b.jsonl::tiny_add[s0]"]
    again = pytester.runpytest_subprocess(*base, failed[1], "-v", *xdist)  # pasted back
    again.assert_outcomes(failed=1)
    assert [r["nodeid"] for r in read_results(pytester.path / "project" / "r.jsonl")] == [failed[1]]


def test_suite_only_mode_leaves_project_tests_alone(pytester):
    pytester.makepyfile(test_project="def test_project(): raise AssertionError('ran')")
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", "--codegen-suite=humaneval", "-k", "HumanEval_0"
    )
    result.assert_outcomes(passed=1, deselected=163)


def test_malformed_suite_is_a_one_line_usage_error(pytester):
    # Named on the command line, it is read at start: a usage error (see test_usage_errors).
    bad = pytester.path / "bad.jsonl"
    bad.write_text(
        '{"task_id": "x/1", "prompt": "def f():\\n", "test": "", '
        '"entry_point": "f"}\n{"task_id": "x/2", "prompt": 3}\n'
    )
    result = pytester.runpytest_subprocess("--codegen-model=reference", str(bad))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: *bad.jsonl:2: missing or non-string field(s) prompt, test*"]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--codegen-samples=0"], "--codegen-samples: invalid value '0' (must be at least 1)"),
        (["--codegen-k=1,x"], "--codegen-k: invalid value '1,x'"),
        (["--codegen-timeout=-1"], "--codegen-timeout: invalid value '-1'"),
        (
            ["--codegen-cpu-pinning=always"],
            "--codegen-cpu-pinning: invalid value 'always' (must be auto or off)",
        ),
        (["--codegen-model=nonsense"], "--codegen-model: unknown model 'nonsense'"),
        (["--codegen-model=replay:nowhere.jsonl"], "cannot read replay file"),
        (["--codegen-model=reference", "--codegen-suite=nope"], "unknown suite 'nope'"),
    ],
)
def test_bad_options_fail_at_start(pytester, args, message):
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_bad_ini_value_names_the_ini_key(pytester):
    pytester.makeini("[pytest]\ncodegen_samples = many\n")
    result = pytester.runpytest_subprocess("--codegen-model=reference")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ini key codegen_samples" in result.stderr.str()
    assert "invalid value 'many'" in result.stderr.str()


def test_ini_keys_configure_the_run(pytester, tiny):
    pytester.makeini("[pytest]\ncodegen_samples = 2\ncodegen_k = 1,2\n")
    result = pytester.runpytest_subprocess("--codegen-model=reference", str(tiny))
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["*pass@1*pass@2*"])


def test_the_collected_items_are_frozen_for_the_garbage_collector_during_the_run(pytester, tiny):
    # They live until the session ends, so each collection the grading loop triggers would
    # only walk them again; an in-process run gives them back when it ends.
    pytester.makeconftest("""
import gc
def pytest_runtest_call(item):
    with open("frozen.txt", "a") as f:
        f.write(f"{gc.get_freeze_count()}\\n")
""")
    assert gc.get_freeze_count() == 0
    result = pytester.runpytest_inprocess(
        "--codegen-model=reference", str(tiny), "-p", "no:cacheprovider"
    )
    assert result.ret == 0
    counts = [int(n) for n in (pytester.path / "frozen.txt").read_text().split()]
    assert counts and min(counts) > 0
    assert gc.get_freeze_count() == 0


def test_a_dist_mode_without_workers_grades_in_process(pytester, tiny):
    # "--dist load" alone starts no workers (xdist needs -n or --tx to distribute): this
    # process runs the items, so it must have the sample runner.
    result = pytester.runpytest_subprocess("--codegen-model=reference", str(tiny), "--dist=load")
    result.assert_outcomes(passed=3)
