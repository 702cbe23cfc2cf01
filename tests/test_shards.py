"""--codegen-shard I/N and --codegen-merge: a run split over a CI matrix and merged reports
what one unsharded run reports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import XDIST_MODES, outcomes_by_node, read_results, write_replay


def write_suite(path: Path, count: int | list[int]) -> Path:
    """A HumanEval-format suite of problems ``gen/f<i>`` (return x + i), in two categories:
    ``count`` of them, or those of the given numbers in that order."""
    rows = [
        {
            "task_id": f"gen/f{i}",
            "category": f"c{i % 2}",
            "prompt": f'def f{i}(x):\n    """Return x + {i}."""\n',
            "canonical_solution": f"    return x + {i}\n",
            "test": f"def check(candidate):\n    assert candidate(1) == {1 + i}\n",
            "entry_point": f"f{i}",
        }
        for i in (range(count) if isinstance(count, int) else count)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def gen(pytester: pytest.Pytester) -> Path:
    """9 problems x 2 samples; every third answer is wrong (12 pass, 6 fail)."""
    write_replay(
        pytester.path / "replay.jsonl",
        [
            {
                "task_id": f"gen/f{i}",
                "sample_index": s,
                "completion": f"    return x + {i if (i + s) % 3 else i + 1}\n",
            }
            for i in range(9)
            for s in range(2)
        ],
    )
    return write_suite(pytester.path / "gen.jsonl", 9)


def summary_lines(lines: list[str]) -> list[str]:
    """The pass@k table and the gate lines of a run's terminal summary."""
    start = next(i for i, ln in enumerate(lines) if "codegen: pass@k of" in ln)
    return [
        ln
        for ln in lines[start + 1 :]
        if ln.startswith(
            ("suite ", "gen ", "       c", "gate passed", "threshold met", "GATE FAILED")
        )
    ]


def html_counts(path: Path) -> tuple[object, object, dict]:
    """The report's summary rows, totals, and each sample's outcome."""
    text = path.read_text()
    data = json.loads(
        re.search(r'<script type="application/json"[^>]*>(.*?)</script>', text, re.S)[1]
    )
    samples = {
        (p["task_id"], s["sample_index"]): s["outcome"]
        for p in data["problems"]
        for s in p["samples"]
    }
    return data["summary"], data["totals"], samples


def selected(result: pytest.RunResult) -> set[str]:
    return {ln for ln in result.stdout.lines if "::" in ln and "[s" in ln}


@pytest.mark.parametrize("gate", ["pass@1=0.6", "pass@1=0.7"])
@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_three_shards_merged_report_what_one_run_reports(pytester, gen, xdist, gate):
    common = ["--codegen-model=replay:replay.jsonl", "--codegen-samples=2", str(gen)]
    whole = pytester.runpytest_subprocess(
        *common,
        *xdist,
        f"--codegen-fail-under={gate}",
        "--codegen-results=whole.jsonl",
        "--codegen-html=whole.html",
    )
    for i in (1, 2, 3):
        shard = pytester.runpytest_subprocess(
            *common, *xdist, f"--codegen-shard={i}/3", f"--codegen-results=s{i}.jsonl"
        )
        assert shard.ret in (0, 1), shard.stdout.str()
    merged = pytester.runpytest_subprocess(
        *xdist,
        *(f"--codegen-merge=s{i}.jsonl" for i in (1, 2, 3)),
        f"--codegen-fail-under={gate}",
        "--codegen-results=merged.jsonl",
        "--codegen-html=merged.html",
    )
    verdicts = outcomes_by_node(pytester.path / "whole.jsonl")
    assert sorted(verdicts.values()).count("failed") == 6  # the suite has both kinds
    assert outcomes_by_node(pytester.path / "merged.jsonl") == verdicts
    assert summary_lines(merged.stdout.lines) == summary_lines(whole.stdout.lines)
    assert any(ln.startswith("gen ") for ln in summary_lines(whole.stdout.lines))
    assert html_counts(pytester.path / "merged.html") == html_counts(pytester.path / "whole.html")
    assert merged.ret == whole.ret == (0 if gate.endswith("0.6") else 1)
    assert "worker" not in merged.stdout.str()  # reading files: one process, even with -n


def test_merge_without_a_gate_fails_as_the_run_did(pytester, gen):
    pytester.runpytest_subprocess(
        "--codegen-model=replay:replay.jsonl", str(gen), "--codegen-results=r.jsonl"
    )
    result = pytester.runpytest_subprocess("--codegen-merge=r.jsonl")
    assert result.ret == 1  # f0[s0], f3[s0], f6[s0] failed
    records = outcomes_by_node(pytester.path / "r.jsonl")
    passing = pytester.path / "passing.jsonl"
    passing.write_text(
        "".join(
            line + "\n"
            for line in (pytester.path / "r.jsonl").read_text().splitlines()
            if json.loads(line)["outcome"] == "passed"
        )
    )
    assert "failed" in records.values()
    assert pytester.runpytest_subprocess("--codegen-merge=passing.jsonl").ret == 0


def test_a_sample_in_two_files_counts_once_from_the_later(pytester, gen):
    pytester.runpytest_subprocess(  # the first of the file's two samples a problem
        "--codegen-model=replay:replay.jsonl",
        "--codegen-samples=1",
        str(gen),
        "--codegen-results=r.jsonl",
    )
    first = pytester.path / "r.jsonl"
    failed = next(json.loads(ln) for ln in first.read_text().splitlines() if '"failed"' in ln)
    (pytester.path / "again.jsonl").write_text(json.dumps({**failed, "outcome": "passed"}) + "\n")
    result = pytester.runpytest_subprocess(
        "--codegen-merge=r.jsonl", "--codegen-merge=again.jsonl", "--codegen-results=m.jsonl"
    )
    assert len(read_results(pytester.path / "m.jsonl")) == 9
    merged = outcomes_by_node(pytester.path / "m.jsonl")
    assert merged == {**outcomes_by_node(first), failed["nodeid"]: "passed"}
    # 9 problems, one sample each: 6 passed + the one passed later, 2 failed
    result.stdout.fnmatch_lines(["gen *(all) *9 *9 *7 *2 *"])


@pytest.mark.parametrize("suite", ["path", "builtin"])
def test_every_problem_in_exactly_one_shard(pytester, gen, suite):
    target = [str(gen)] if suite == "path" else ["--codegen-suite=everyday"]
    model = "replay:replay.jsonl" if suite == "path" else "reference"
    args = [f"--codegen-model={model}", "--codegen-samples=3", "--co", "-q", *target]
    everything = selected(pytester.runpytest_subprocess(*args))
    runs = [pytester.runpytest_subprocess(*args, f"--codegen-shard={i}/3") for i in (1, 2, 3)]
    shards = [selected(run) for run in runs]
    assert len(everything) >= 18
    for run, shard in zip(runs, shards, strict=True):  # left out as pytest's deselection
        run.stdout.fnmatch_lines(
            [
                f"{len(shard)}/{len(everything)} tests collected ({len(everything) - len(shard)}"
                " deselected)*"
            ]
        )
    assert set().union(*shards) == everything
    assert sum(len(s) for s in shards) == len(everything)  # none in two shards
    for shard in shards:
        assert shard  # each shard has a share
        problems = {nodeid.rsplit("[", 1)[0] for nodeid in shard}
        # all samples of a problem in one shard
        assert {nodeid for nodeid in everything if nodeid.rsplit("[", 1)[0] in problems} == shard


def test_a_problems_shard_stays_when_problems_are_added(pytester):
    write_suite(pytester.path / "gen.jsonl", list(range(0, 60, 2)))
    args = ["--codegen-model=reference", "--co", "-q", "gen.jsonl"]
    before = {
        i: selected(pytester.runpytest_subprocess(*args, f"--codegen-shard={i}/4"))
        for i in range(1, 5)
    }
    # New problems before, between and after the old ones.
    write_suite(pytester.path / "gen.jsonl", list(range(61, -1, -1)))
    after = {
        i: selected(pytester.runpytest_subprocess(*args, f"--codegen-shard={i}/4"))
        for i in range(1, 5)
    }
    old = set().union(*before.values())
    assert len(old) == 30
    for i in range(1, 5):
        assert 3 <= len(before[i]) <= 12  # a balanced share of 30 (7.5 expected)
        assert before[i] == after[i] & old


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("value", ["0/3", "4/3", "3", "a/3", "1/0", "-1/3", "1/3/3"])
def test_bad_shard_values_are_one_usage_error(pytester, gen, xdist, value):
    result = pytester.runpytest_subprocess(
        "--codegen-model=replay:replay.jsonl", str(gen), f"--codegen-shard={value}", *xdist
    )
    assert result.ret == 4
    errors = [ln for ln in result.stderr.lines if ln.strip()]
    assert errors == [
        f"ERROR: --codegen-shard: invalid value {value!r} (must be I/N with 1 <= I <= N, e.g. 2/3)"
    ]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_bad_shard_in_the_ini_file_names_it(pytester, gen, xdist):
    pytester.makeini("[pytest]\ncodegen_shard = 4/3\n")
    result = pytester.runpytest_subprocess("--codegen-model=replay:replay.jsonl", str(gen), *xdist)
    assert result.ret == 4
    assert [ln for ln in result.stderr.lines if ln.strip()] == [
        f"ERROR: ini key codegen_shard in {pytester.path / 'tox.ini'}: invalid value '4/3'"
        " (must be I/N with 1 <= I <= N, e.g. 2/3)"
    ]


def test_shard_from_the_ini_file_selects(pytester, gen):
    pytester.makeini("[pytest]\ncodegen_shard = 2/3\n")
    args = ["--codegen-model=replay:replay.jsonl", "--codegen-samples=2", "--co", "-q", str(gen)]
    from_ini = selected(pytester.runpytest_subprocess(*args))
    assert from_ini == selected(pytester.runpytest_subprocess(*args, "--codegen-shard=2/3"))
    assert 0 < len(from_ini) < 18


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_merge_of_an_unreadable_file_is_one_usage_error(pytester, xdist):
    (pytester.path / "bad.jsonl").write_text(
        '{"nodeid": "a::b[s0]", "outcome": "passed"}\nnot json\n'
    )
    for name, says in (("absent.jsonl", "No such file"), ("bad.jsonl", "bad.jsonl")):
        result = pytester.runpytest_subprocess(f"--codegen-merge={name}", *xdist)
        assert result.ret == 4
        errors = [ln for ln in result.stderr.lines if ln.strip()]
        assert len(errors) == 1 and errors[0].startswith("ERROR: --codegen-merge: ")
        assert says in errors[0]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_empty_shard_is_a_normal_share_not_a_run_that_found_nothing(pytester, xdist):
    from pytest_codegen.collect.shards import shard_of

    suite = write_suite(pytester.path / "gen.jsonl", 2)  # two problems in eight shards
    used = {shard_of("gen", f"gen/f{i}", 8) for i in range(2)}
    empty = min(set(range(1, 9)) - used)
    args = ["--codegen-model=reference", str(suite), f"--codegen-shard={empty}/8", *xdist]
    result = pytester.runpytest_subprocess(*args, "--codegen-results=r.jsonl")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([f"no samples were graded: shard {empty}/8 holds none of *"])
    assert read_results(pytester.path / "r.jsonl") == []
    # Nothing selected before the shard's share was taken: pytest's own "no tests ran".
    nothing = pytester.runpytest_subprocess(*args, "-k", "no_such_problem")
    assert nothing.ret == pytest.ExitCode.NO_TESTS_COLLECTED


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_merge_refuses_flags_it_would_ignore_but_not_the_ini_files(pytester, gen, xdist):
    run = ["--codegen-model=replay:replay.jsonl", "--codegen-samples=2", str(gen)]
    pytester.runpytest_subprocess(*run, "--codegen-results=all.jsonl")
    merge = ["--codegen-merge=all.jsonl", *xdist]
    result = pytester.runpytest_subprocess(*merge, "--codegen-model=reference")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [ln for ln in result.stderr.lines if ln.strip()] == [
        "ERROR: --codegen-merge reports the runs in its files and grades nothing:"
        " --codegen-model would not be used (drop it, or run without --codegen-merge)"
    ]
    # The same model in an ini file, kept there for the runs themselves: the merge reports.
    pytester.makeini("[pytest]\ncodegen_model = reference\ncodegen_samples = 2\n")
    assert pytester.runpytest_subprocess(*merge).ret == pytest.ExitCode.TESTS_FAILED
