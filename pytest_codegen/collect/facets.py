"""Selection by what a problem is: ``--codegen-contest-after``/``--codegen-contest-before``
(e.g. only problems published after a model's training cutoff, LiveCodeBench's reason to
exist), ``--codegen-release``, ``--codegen-platform`` and ``--codegen-difficulty``.

A problem's facets are its kind's to say (``Kind.facets``); a problem that lacks a facet
being selected on is left out (it cannot be shown to be after the cutoff). Like the shards,
this is a deselection after collection, made alike in every process, so it combines with
``-k``, node ids and ``--codegen-shard``.
"""

from __future__ import annotations

import pytest

from ..kinds.registry import kinds_of
from ..problems import Problem
from ..settings import Settings


class FacetSelection:
    """Deselects the samples of problems outside the selection (other tests are kept)."""

    def __init__(self, settings: Settings) -> None:
        self.after = settings.contest_after
        self.before = settings.contest_before
        self.release = settings.release
        self.platforms = {p.lower() for p in settings.platform}
        self.difficulties = {d.lower() for d in settings.difficulty}

    @staticmethod
    def wanted(settings: Settings) -> bool:
        """Whether any facet is selected on."""
        return bool(
            settings.contest_after
            or settings.contest_before
            or settings.release
            or settings.platform
            or settings.difficulty
        )

    def keeps(self, facets: dict[str, str]) -> bool:
        date = facets.get("contest_date")
        if (self.after or self.before) and not date:
            return False
        # ISO dates compare as text; a bare date is the start of its day.
        if self.after and date is not None and date < self.after:
            return False
        if self.before and date is not None and date >= self.before:
            return False
        if self.release:
            release = facets.get("release", "")
            if not release.isdigit() or int(release) > self.release:
                return False
        if self.platforms and facets.get("platform", "").lower() not in self.platforms:
            return False
        return not (
            self.difficulties and facets.get("difficulty", "").lower() not in self.difficulties
        )

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        from .items import SampleItem

        kinds = kinds_of(config)
        verdicts: dict[int, bool] = {}

        def keep(problem: Problem) -> bool:
            if id(problem) not in verdicts:
                verdicts[id(problem)] = self.keeps(kinds.of(problem).facets(problem))
            return verdicts[id(problem)]

        kept = [i for i in items if not isinstance(i, SampleItem) or keep(i.problem)]
        if len(kept) < len(items):
            config.hook.pytest_deselected(items=[i for i in items if i not in kept])
            items[:] = kept
