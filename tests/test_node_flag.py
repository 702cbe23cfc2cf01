"""``--codegen-node`` through the whole plugin: the Node it names grades React samples."""

from __future__ import annotations

import stat

import pytest
from conftest import ROOT, read_results

from pytest_codegen.execution.jest.node_env import find_node

TEST_FILE = ROOT / "benchmarks" / "react" / "blogging" / "deleteComment.test.js"


def test_the_configured_node_grades_react_samples(pytester, tmp_path):
    # A wrapper around this machine's Node that notes each start: the plugin must ask it.
    real = find_node().path
    log = tmp_path / "node-used.log"
    wrapper = tmp_path / "my-node"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec {real} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference",
        str(TEST_FILE),
        f"--codegen-node={wrapper}",
        "--codegen-results=r.jsonl",
        timeout=600,
    )
    result.assert_outcomes(passed=1)
    assert log.exists() and "process.execPath" in log.read_text()
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["mode"] == "jest" and record["outcome"] == "passed"


def test_a_configured_node_that_does_not_run_fails_every_react_sample(pytester, tmp_path):
    missing = tmp_path / "no-such-node"
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference",
        str(TEST_FILE),
        f"--codegen-node={missing}",
        "--codegen-results=r.jsonl",
        timeout=600,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] == "crashed", record
    assert f"the configured Node {str(missing)!r} does not run" in record["error"]
