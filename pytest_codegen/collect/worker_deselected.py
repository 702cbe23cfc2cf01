"""The items xdist's workers deselected, counted in the line that ends the run.

pytest's last line says ``N deselected`` for the items ``-k``, ``--lf``, pasted node ids,
``--codegen-shard`` or ``--codegen-resume`` left out. With xdist the workers collect and
deselect, and the controller, which writes the line, never heard of them: the count was left
out. Each worker counts what it deselected; the controller adds one worker's count (every
worker collects the same items) before the line is written, so it is the plain run's.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..keys import WORKER_DESELECTED_KEY
from ..pytest_internals import count_deselected


class WorkerDeselected:
    """In a worker: counts the items deselected there, for the controller."""

    def __init__(self, workeroutput: dict[str, Any]) -> None:
        self.workeroutput = workeroutput

    def pytest_deselected(self, items: list[Any]) -> None:
        before = self.workeroutput.get(WORKER_DESELECTED_KEY, 0)
        self.workeroutput[WORKER_DESELECTED_KEY] = before + len(items)


class ControllerDeselected:
    """In the xdist controller: the most any worker deselected, told to pytest's summary."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.deselected = 0

    def pytest_testnodedown(self, node: Any) -> None:
        count = getattr(node, "workeroutput", {}).get(WORKER_DESELECTED_KEY, 0)
        self.deselected = max(self.deselected, count)

    def pytest_sessionfinish(self) -> None:  # before the terminal reporter writes its line
        count_deselected(self.config, self.deselected)
