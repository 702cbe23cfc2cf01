"""The kinds of a run: the built-in ones and those other plugins add.

Built once per process in ``pytest_configure`` (every xdist worker builds its own, from the
same plugins and conftest files) and kept in ``config.stash``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ..keys import KINDS_KEY
from ..problems import Problem, SuiteError
from ..user_hooks import call_hook
from .apps import AppsKind
from .evalplus import EvalPlusKind
from .execcsn import ExecCSNKind
from .humaneval import HumanEvalKind
from .humaneval_x import HumanEvalXKind
from .livecodebench import LiveCodeBenchKind
from .multipl_e import MultiPLEKind
from .protocol import Kind
from .webapp1k import WebApp1KKind


class KindRegistry:
    """Kinds by name; files are offered to the kinds added last first (so a plugin's kind
    can take a file format over from a built-in one)."""

    def __init__(self) -> None:
        self._kinds: dict[str, Kind] = {}

    def register(self, kind: Kind) -> None:
        if not kind.name:
            raise ValueError(f"{type(kind).__name__}: a kind needs a name")
        self._kinds.pop(kind.name, None)
        self._kinds[kind.name] = kind

    def __iter__(self) -> Iterator[Kind]:
        return iter(reversed(list(self._kinds.values())))

    def named(self, name: str) -> Kind | None:
        return self._kinds.get(name)

    def of(self, problem: Problem) -> Kind:
        """The kind that grades ``problem``."""
        kind = self._kinds.get(problem.mode)
        if kind is None:
            raise ValueError(f"unknown grading mode {problem.mode!r} for {problem.id}")
        return kind

    def claiming(self, path: Path, explicit: bool) -> Kind | None:
        """The kind that reads the file ``path``, if any."""
        return next((kind for kind in self if kind.claims(path, explicit)), None)

    def reading(self, path: Path) -> Kind:
        """The kind that reads the suite ``path`` (a file or a directory) when it is named;
        ``SuiteError`` if none does."""
        kind = self.claiming(path, explicit=True)
        if kind is None:
            raise SuiteError(
                f"{path}: not a suite file (expected .jsonl, .jsonl.gz, .json or a directory)"
            )
        return kind


def builtin_kinds() -> KindRegistry:
    """A registry of the built-in kinds."""
    kinds = KindRegistry()
    # Offered files in the reverse order: an EvalPlus file is a HumanEval file too, and
    # LiveCodeBench, MultiPL-E and HumanEval-X files are JSON Lines files too: their kinds
    # look before HumanEval's loader would call them malformed.
    for kind in (
        WebApp1KKind(),
        ExecCSNKind(),
        HumanEvalKind(),
        EvalPlusKind(),
        LiveCodeBenchKind(),
        AppsKind(),
        MultiPLEKind(),
        HumanEvalXKind(),
    ):
        kinds.register(kind)
    return kinds


def configure_kinds(config: pytest.Config) -> KindRegistry:
    """The run's kinds: the built-in ones and every ``pytest_codegen_add_kinds`` one."""
    kinds = config.stash[KINDS_KEY] = builtin_kinds()
    call_hook("pytest_codegen_add_kinds", kinds=kinds, config=config)
    return kinds


def kinds_of(config: pytest.Config) -> KindRegistry:
    return config.stash[KINDS_KEY]
