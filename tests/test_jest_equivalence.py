"""The warm runner gives the verdicts of a fresh Jest run, on every React problem we ship.

The runner keeps one Node process for many samples and shares, between test files, the
toolchain's file contents and compiled scripts and the frozen exports of pure packages such as
aria-query (``execution/jest/node/runtime.js``), and Babel's output for a file it has seen
(``execution/jest/node/transformer.js``). That may only make it faster: for each of the 48
problems of ``benchmarks/react`` with its reference, a wrong and an empty solution, every
test's status must equal what plain ``jest --ci`` reports, where each file gets a fresh module
registry and jsdom (:mod:`pytest_codegen.execution.jest.plain_jest`).
"""

from __future__ import annotations

import pytest
from conftest import REACT_KINDS, react_samples, shared_cache

from pytest_codegen.execution.extract import extract_code
from pytest_codegen.execution.jest.node_env import ensure_toolchain, find_node
from pytest_codegen.execution.jest.plain_jest import lay_out, read_report, run_jest
from pytest_codegen.execution.jest.warm_runner import JestRunner
from pytest_codegen.kinds.webapp1k import run_in


@pytest.fixture(scope="module")
def samples():
    return react_samples()


def test_warm_runner_matches_a_fresh_jest_run_test_by_test(samples, tmp_path):
    problems, rows = samples
    node = find_node()
    toolchain = ensure_toolchain(node, shared_cache())
    dirs = lay_out(tmp_path / "tree", problems, rows)
    run_jest(node, toolchain, tmp_path / "tree", tmp_path / "report.json", workers=2)
    fresh = read_report(tmp_path / "report.json", dirs)
    assert set(fresh) == set(dirs), "plain Jest did not report every sample"

    warm = {}
    with JestRunner(node, toolchain, recycle_after=10_000) as runner:
        for row in rows:
            problem = problems[row["task_id"]]
            code = extract_code(row["completion"], problem.language)
            verdict = run_in(runner, problem, code)
            warm[(row["task_id"], row["sample_index"])] = verdict
        assert runner.starts == 1, "one process graded every sample"

    for key, verdict in warm.items():
        expected = [(t["name"], t["status"]) for t in fresh[key]["tests"]]
        got = [(t["name"], t["status"]) for t in verdict.tests]
        assert got == expected, f"{key}: {verdict.message}"
    # Not a vacuous agreement: references pass, wrong and empty answers fail somewhere.
    by_kind = {kind: [warm[(p, i)].passed for p in problems] for i, kind in enumerate(REACT_KINDS)}
    assert all(by_kind["reference"])
    assert not any(by_kind["wrong"]) and not any(by_kind["empty"])
