"""Sample node ids back to their problems, for the process that reports the run.

A sample that never reported (its worker died, the run ended first) is recorded under its
problem's id, suite and category, as a graded one is: ``HumanEval/2``, not the node name
``HumanEval_2``. The xdist controller collects nothing, so it finds the problem from the node
id (``<suite>::<problem node name>[s<i>]``): the suite read at start (:mod:`.selection`), or
read again through ``pytest_codegen_load_suite``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..keys import NAMED_KEY
from ..kinds.registry import kinds_of
from ..problems import Problem
from .selection import builtin_files


class NodeProblems:
    """The problem of a sample's node id; suites are read once, when first asked for."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.known: dict[str, Problem] = {}  # node id -> problem, from collected items
        self.suites: dict[str, dict[str, Problem]] = {}  # suite part -> node name -> problem

    def add_items(self, items: list[pytest.Item]) -> None:
        """Take the problems of collected sample items (a run without xdist has them)."""
        for item in items:
            problem = getattr(item, "problem", None)
            if isinstance(problem, Problem):
                self.known[item.nodeid] = problem

    def is_sample(self, nodeid: str) -> bool:
        """Whether ``nodeid`` is a sample's, not one of the project's own tests run beside the
        samples: a collected sample's, or one whose suite part names a suite (a built-in
        suite's name, or a path a kind reads, even one that cannot be read now)."""
        if nodeid in self.known:
            return True
        suite, sep, _ = nodeid.partition("::")
        if not sep:
            return False
        if suite in builtin_files(self.config).values():
            return True
        path = self.config.rootpath / suite
        return kinds_of(self.config).claiming(path, explicit=True) is not None

    def of(self, nodeid: str) -> Problem | None:
        """The problem of the sample ``nodeid``, or None if its suite cannot tell."""
        if nodeid in self.known:
            return self.known[nodeid]
        suite, sep, rest = nodeid.partition("::")
        if not sep:
            return None
        if suite not in self.suites:
            self.suites[suite] = {p.node_name: p for p in self.read(suite)}
        return self.suites[suite].get(rest.rsplit("[", 1)[0])

    def read(self, suite: str) -> list[Problem]:
        """The problems of the suite a node id starts with: a built-in suite's name or a
        path from the root directory."""
        by_name = {name: path for path, name in builtin_files(self.config).items()}
        path = by_name.get(suite) or self.config.rootpath / suite
        named = self.config.stash.get(NAMED_KEY, {}).get(Path(path).resolve())
        if named is not None:
            return named
        try:
            problems = self.config.hook.pytest_codegen_load_suite(path=path, config=self.config)
        except Exception:  # a suite unreadable now: the node name stands in for the problem
            return []
        return list(problems or [])
