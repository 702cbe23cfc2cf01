"""Our React suite through the whole plugin: real Jest in the managed Node environment."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, ROOT, XDIST_MODES, read_results

REACT = ROOT / "benchmarks" / "react"


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_references_all_pass(pytester, xdist):
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", str(REACT), "--codegen-results=r.jsonl", *xdist, timeout=900
    )
    records = read_results(pytester.path / "r.jsonl")
    assert len(records) == 48
    assert {r["outcome"] for r in records} == {"passed"}, [
        (r["task_id"], r["error"]) for r in records if not r["passed"]
    ]
    assert all(r["mode"] == "jest" and len(r["tests"]) == 2 for r in records)
    result.stdout.fnmatch_lines(["react *(all) *48 *48 *48 *1.000*"])


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_empty_app_fails_every_problem(pytester, xdist):
    replay = FIXTURES / "replays" / "react-empty.jsonl"
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        str(REACT),
        "--codegen-results=r.jsonl",
        *xdist,
        timeout=900,
    )
    result.assert_outcomes(failed=48)
    records = read_results(pytester.path / "r.jsonl")
    assert all(r["outcome"] == "failed" for r in records)
    # every problem's success and failure test both fail
    assert all([t["status"] for t in r["tests"]] == ["failed", "failed"] for r in records)
    result.stdout.fnmatch_lines(["react *(all) *48 *48 *0 *48 *0.000*"])


def test_wrong_answers_name_the_failing_test(pytester):
    replay = FIXTURES / "replays" / "react-wrong.jsonl"
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}", f"{REACT}/blogging/publishPost.test.js", timeout=600
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["failed: publishes a new post*"])
    assert "Captured generated code" in result.stdout.str()


def test_suite_check_flags_unsolvable_problems(pytester):
    shop = pytester.mkdir("suite") / "shop"
    shop.mkdir()
    (shop / "approve.test.js").write_text(
        "import React from 'react';\n"
        "import { render, screen } from '@testing-library/react';\n"
        "import Approve from '../approve';\n"
        "test('renders', () => { render(<Approve />); });\n"
    )
    (shop / "approve.js").write_text("export default function A() { return null; }\n")
    result = pytester.runpytest_subprocess("--codegen-model=reference", "suite")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*cannot be solved as shipped: imports '../approve' from outside the sample's dir*"]
    )


def test_a_reply_with_its_tests_after_the_component_is_graded_on_the_component(pytester):
    # WebApp1K's harness takes a reply's first code; the plugin took the longest block that
    # names the component, here the tests the model wrote after it, and failed the sample.
    import json

    component = (REACT / "blogging" / "publishPost.js").read_text()
    tests = (REACT / "blogging" / "publishPost.test.js").read_text()
    reply = (
        f"Here is the component:\n```jsx\n{component}```\n\nAnd tests for it:\n"
        f"```jsx\n{tests}\n{'// more cases to come' * 40}\n```\n"
    )
    assert len(tests) > len(component)
    (pytester.path / "replay.jsonl").write_text(
        json.dumps({"task_id": "blogging/publishPost", "completion": reply}) + "\n"
    )
    result = pytester.runpytest_subprocess(
        "--codegen-model=replay:replay.jsonl",
        f"{REACT}/blogging/publishPost.test.js",
        "--codegen-results=r.jsonl",
        timeout=600,
    )
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] == "passed", record["error"]
    assert record["code"].strip() == component.strip()
    assert result.ret == 0


NODE_AT_CALL_PLUGIN = """
import json, pytest
from pytest_codegen.keys import runner_of

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    node = runner_of(item.config).executor.node_version()
    with open("node-at-call.jsonl", "a") as out:
        out.write(json.dumps({"node": item.nodeid, "version": node}) + "\\n")
"""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_jest_environment_is_ready_before_the_first_call(pytester, xdist):
    # Node's toolchain (npm ci on a fresh machine) and the Jest runner's warm-up took place
    # in the first sample's call, under pytest-timeout's guard of its grading (80 s): where
    # they took longer, that sample was cut, and every next one began them again.
    pytester.makepyfile(node_at_call=NODE_AT_CALL_PLUGIN)
    result = pytester.runpytest_subprocess(
        "-p",
        "node_at_call",
        "--codegen-model=reference",
        str(REACT),
        "-k",
        "blogging",
        *xdist,
        timeout=900,
    )
    assert result.ret == 0
    lines = (pytester.path / "node-at-call.jsonl").read_text().splitlines()
    seen = [json.loads(line) for line in lines]
    assert seen and all(s["version"] and s["version"].startswith("v") for s in seen), seen
