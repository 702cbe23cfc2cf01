"""``--codegen-shard I/N``: one machine of a CI matrix grades its share of the problems.

A problem's shard is a hash of its suite's name and its id, not its position or a random
draw: every machine, run after run, puts it in the same shard, all its samples with it, and a
problem added to a suite leaves the others where they were. Hashing spreads problems evenly
in expectation (a share differs from 1/N by about the square root of its size). The
selection is a deselection after collection, as ``-k`` is, so it applies alike to suite files
and built-in suites, and every process (xdist's workers included) deselects the same samples.
"""

from __future__ import annotations

import hashlib

import pytest

from ..keys import DESELECTED_KEY


def shard_of(suite: str, task_id: str, total: int) -> int:
    """The shard (1 to ``total``) of a problem: stable across runs, machines and Pythons
    (sha256, not ``hash()``, which is salted per process)."""
    digest = hashlib.sha256(f"{suite}\n{task_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % total + 1


class ShardSelection:
    """Deselects the samples of problems outside this shard (other tests are kept)."""

    def __init__(self, shard: tuple[int, int]) -> None:
        self.index, self.total = shard
        self.deselected = 0  # samples of other shards

    @pytest.hookimpl(trylast=True)  # after -k and -m, as a share of what they kept
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        from .items import SampleItem

        kept, dropped = [], []
        for item in items:
            if not isinstance(item, SampleItem) or self.index == shard_of(
                item.problem.suite, item.problem.id, self.total
            ):
                kept.append(item)
            else:
                dropped.append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
        self.deselected += len(dropped)
        workeroutput = getattr(config, "workeroutput", None)
        if workeroutput is not None:  # for the controller, which collects nothing
            workeroutput[DESELECTED_KEY] = self.deselected

    def empty(self, deselected_by_workers: int) -> bool:
        """Whether this shard holds none of the samples selected, though there were some:
        a normal share of a small suite cut into many shards, not a run that found nothing."""
        return max(self.deselected, deselected_by_workers) > 0
