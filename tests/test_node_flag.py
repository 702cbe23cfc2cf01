"""``--codegen-node`` through the whole plugin: the Node it names grades React samples."""

from __future__ import annotations

import json
import stat

import pytest
from conftest import ROOT, XDIST_MODES, read_results

from pytest_codegen.execution.jest.node_env import MARKER, find_node, toolchain_hash

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


def executable(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


NODES = {
    "missing": (lambda tmp: tmp / "no-such-node", "does not exist"),
    "not node": (
        lambda tmp: executable(tmp / "not-node", "#!/bin/sh\necho hello\n"),
        "does not run as Node.js (it printed no process.version)",
    ),
    "too old": (
        lambda tmp: executable(tmp / "old-node", "#!/bin/sh\necho /usr/bin/node\necho v16.20.2\n"),
        "is v16.20.2; Node >= 18 is needed",
    ),
}


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("case", sorted(NODES))
def test_an_unusable_configured_node_is_one_usage_error_before_grading(
    pytester, tmp_path, case, xdist
):
    # Every React sample was graded "crashed" (pass@1 = 0.000, exit 1): the machine's fault
    # scored as the model's.
    make, why = NODES[case]
    node = make(tmp_path)
    earlier = pytester.path / "r.jsonl"  # an earlier run's results: a refused run keeps them
    earlier.write_text('{"nodeid": "earlier", "outcome": "passed"}\n')
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference",
        str(TEST_FILE),
        f"--codegen-node={node}",
        "--codegen-results=r.jsonl",
        *xdist,
        timeout=600,
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    errors = [line for line in result.stderr.lines if line.startswith("ERROR: ")]
    assert len(errors) == 1, result.stderr.str()
    assert errors[0].startswith(f"ERROR: --codegen-node: the configured Node {str(node)!r} {why}")
    assert "pass@" not in result.stdout.str()
    assert read_results(earlier) == [{"nodeid": "earlier", "outcome": "passed"}]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_jest_toolchain_npm_cannot_install_is_one_usage_error(
    pytester, monkeypatch, tmp_path, xdist
):
    # A fresh cache and a registry that refuses: npm ci fails before any sample runs.
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", str(TEST_FILE), *xdist, timeout=600
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    (error,) = [line for line in result.stderr.lines if line.startswith("ERROR: ")]
    assert error.startswith(
        "ERROR: React suites: the Jest toolchain cannot be installed: npm ci of the Jest "
        "toolchain failed (it needs the npm registry once); "
    ), error
    assert "crashed" not in result.stdout.str()


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_broken_managed_jest_environment_is_one_usage_error(
    pytester, monkeypatch, tmp_path, xdist
):
    # A toolchain directory marked complete whose node_modules are gone: the runner fails
    # its warm-up, before any sample.
    cache = tmp_path / "cache"
    digest = toolchain_hash(find_node())
    (cache / f"node-{digest}").mkdir(parents=True)
    (cache / f"node-{digest}" / MARKER).write_text(json.dumps({"hash": digest}))
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(cache))
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", str(TEST_FILE), *xdist, timeout=600
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    (error,) = [line for line in result.stderr.lines if line.startswith("ERROR: ")]
    assert error.startswith(
        "ERROR: React suites: the Jest environment does not work: the Jest runner failed its "
        "warm-up"
    ), error
