"""The public hooks, implemented by a conftest.py as a user would: a model of its own
(``pytest_codegen_make_model``), a suite format of its own (``pytest_codegen_load_suite``)
and a look at every verdict (``pytest_codegen_sample_graded``), in one process and with xdist."""

from __future__ import annotations

import json
import textwrap

import pytest
from conftest import XDIST_MODES, read_results

CONFTEST = '''
import json
import textwrap

from pytest_codegen import Completion, Model, Problem


class Echo(Model):
    """Answers with the answer a "pairs" problem carries, else with the reference."""

    def __init__(self, spec):
        self.spec = spec

    def generate(self, request):
        answer = request.problem.extra.get("answer", request.problem.reference)
        return [Completion(text=answer) for _ in range(request.n)]


def _worker(config):
    # Which process calls: the worker's id, or None on the controller (or the only process).
    # Read from the config, not the environment: an outer xdist run sets PYTEST_XDIST_WORKER
    # for the whole pytester subprocess.
    return getattr(config, "workerinput", {}).get("workerid")


def _log(name, line):
    with open(name, "a") as f:
        f.write(json.dumps(line) + "\\n")


def pytest_codegen_make_model(spec, config):
    _log("made.jsonl", {"spec": spec, "worker": _worker(config)})
    if spec.startswith("echo:"):
        return Echo(spec)
    return None


def pytest_codegen_load_suite(path, config):
    _log("loaded.jsonl", {"path": path.name, "worker": _worker(config)})
    data = json.loads(path.read_text()) if path.suffix == ".json" else None
    if not isinstance(data, dict) or data.get("format") != "pairs":
        return None  # the plugin's own loaders read it
    shared = dict(suite="pairs", category="doubling", language="python", mode="python-call")
    problems = []
    for name, x, y, answer in data["pairs"]:
        check = f"def check(candidate):\\n    assert candidate({x!r}) == {y!r}\\n"
        extra = {"entry_point": name, "answer": answer}
        prompt = f"def {name}(x):\\n"
        problem = Problem(id=f"pairs/{name}", prompt=prompt, tests=check, extra=extra, **shared)
        problems.append(problem)
    return problems


def pytest_codegen_sample_graded(record, config):
    _log("graded.jsonl", dict(record, worker=_worker(config)))
'''

PAIRS = {
    "format": "pairs",
    "pairs": [
        ["double", 2, 4, "    return x * 2\n"],
        ["triple", 2, 6, "    return x * 2\n"],  # wrong
    ],
}


PAIR_OUTCOMES = [("double", "passed"), ("triple", "failed")]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_conftest_brings_its_model_its_suite_format_and_sees_every_verdict(pytester, tiny, xdist):
    pytester.makeconftest(CONFTEST)
    (pytester.path / "pairs.json").write_text(json.dumps(PAIRS))
    result = pytester.runpytest_subprocess(
        "--codegen-model=echo:v1",
        "pairs.json",
        str(tiny),
        "--codegen-samples=2",
        "--codegen-results=r.jsonl",
        *xdist,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-3000:] + str(
        result.stderr
    )
    # The conftest's problems, graded with its model's answers; tiny's read by the plugin.
    expected = {f"pairs.json::pairs_{n}[s{i}]": o for n, o in PAIR_OUTCOMES for i in (0, 1)}
    for name in ("tiny_add", "tiny_reverse_words", "tiny_Counter"):
        expected.update({f"tiny.jsonl::{name}[s{i}]": "passed" for i in (0, 1)})
    records = read_results(pytester.path / "r.jsonl")
    assert {r["nodeid"]: r["outcome"] for r in records} == expected
    result.assert_outcomes(passed=8, failed=2)
    assert {r["model"] for r in read_results(pytester.path / "r.jsonl")} == {"echo:v1"}
    made = read_results(pytester.path / "made.jsonl")
    assert made and {m["spec"] for m in made} == {"echo:v1"}
    loaded = read_results(pytester.path / "loaded.jsonl")
    assert {entry["path"] for entry in loaded} == {"pairs.json", "tiny.jsonl"}
    # Every record once, on the controller (or the only process), as the results file has it.
    graded = read_results(pytester.path / "graded.jsonl")
    assert {g.pop("worker") for g in graded} == {None}
    assert sorted(graded, key=lambda g: g["nodeid"]) == sorted(
        read_results(pytester.path / "r.jsonl"), key=lambda r: r["nodeid"]
    )


def test_items_that_are_not_samples_get_no_record_made_up(pytester, tiny):
    """``pytest_codegen_grades_samples``: by default a run accounts for every sample it
    collected (one it never graded, here after ``-x``, is recorded as missing); a plugin whose
    items are not samples answers False and is recorded only what its items report."""
    args = ("--codegen-model=empty", str(tiny), "-x", "--codegen-results=r.jsonl")
    pytester.runpytest_subprocess(*args).assert_outcomes(failed=1)
    outcomes = sorted(r["outcome"] for r in read_results(pytester.path / "r.jsonl"))
    assert outcomes == ["failed", "missing", "missing"]

    (pytester.path / "r.jsonl").unlink()
    pytester.makeconftest("def pytest_codegen_grades_samples(config):\n    return False\n")
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(failed=1)
    assert [r["outcome"] for r in read_results(pytester.path / "r.jsonl")] == ["failed"]
    result.stdout.fnmatch_lines(["*codegen: pass@k of empty*"])  # a sample was scored


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_load_suite_hooks_example_reads_and_grades_its_suite(pytester, xdist):
    # The example in the hook's docstring (the hooks page shows it), run as a conftest.py: it
    # is asked for a .json named on the command line, and its problems are graded.
    from pytest_codegen import hookspecs

    doc = hookspecs.pytest_codegen_load_suite.__doc__
    example = textwrap.dedent(doc.split("::\n", 1)[1])
    pytester.makeconftest("import json\nfrom pytest_codegen import Problem\n\n" + example)
    row = {"id": "m/mul", "entry_point": "mul", "prompt": "def mul(a, b):\n"}
    row.update(tests="def check(candidate):\n    assert candidate(2, 3) == 6\n")
    (pytester.path / "my-suite.json").write_text(json.dumps([row]))
    (pytester.path / "samples.jsonl").write_text(
        json.dumps({"task_id": "m/mul", "completion": "    return a * b\n"}) + "\n"
    )
    args = ("--codegen-model=replay:samples.jsonl", "my-suite.json", "--codegen-results=r.jsonl")
    result = pytester.runpytest_subprocess(*args, *xdist)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    records = read_results(pytester.path / "r.jsonl")
    outcomes = [(r["nodeid"], r["outcome"]) for r in records]
    assert outcomes == [("my-suite.json::m_mul[s0]", "passed")]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_hooks_python_call_problem_without_entry_point_is_an_error_saying_so(pytester, xdist):
    # Not a KeyError crash of each sample: the problem cannot be solved as made.
    pytester.makeconftest(
        """
        from pytest_codegen import Problem

        def pytest_codegen_load_suite(path, config):
            if path.name == "s.json":
                test = "def check(candidate):\\n    assert candidate(1) == 1\\n"
                return [Problem(id="s/0", suite="s", category="c", language="python",
                                prompt="def f(x):\\n", tests=test, reference="    return x\\n",
                                mode="python-call")]
        """
    )
    (pytester.path / "s.json").write_text("[]\n")
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", "--codegen-results=r.jsonl", "s.json", *xdist
    )
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] == "error"
    assert "names no entry_point" in record["error"], record["error"]
    assert "KeyError" not in result.stdout.str()


# Each public hook as a conftest.py implements it, raising from its second line.
RAISING = {
    "pytest_codegen_make_model": "spec, config",
    "pytest_codegen_load_suite": "path, config",
    "pytest_codegen_add_kinds": "kinds, config",
    "pytest_codegen_sample_graded": "record, config",
    "pytest_codegen_grades_samples": "config",
}


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("hook", sorted(RAISING))
def test_a_conftest_hook_that_raises_is_one_line_and_exit_4(pytester, tiny, hook, xdist):
    # Was an INTERNALERROR with pluggy's traceback (exit 3; exit 1 for grades_samples).
    pytester.makeconftest(f"def {hook}({RAISING[hook]}):\n    raise KeyError('no such field')\n")
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", "--codegen-results=r.jsonl", str(tiny), *xdist
    )
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR, out
    assert "INTERNALERROR" not in out and "Traceback" not in out
    errors = [line for line in result.stderr.lines if line.startswith("ERROR: ")]
    more = " (and on 2 more samples)" if hook == "pytest_codegen_sample_graded" else ""
    assert errors == [f"ERROR: {hook} (conftest.py:2) raised KeyError: 'no such field'{more}"]
    if hook in ("pytest_codegen_sample_graded", "pytest_codegen_grades_samples"):
        # Raised once the samples were graded: every record is kept.
        assert {r["outcome"] for r in read_results(pytester.path / "r.jsonl")} == {"passed"}
        assert len(read_results(pytester.path / "r.jsonl")) == 3
