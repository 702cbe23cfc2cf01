"""With pytest-xdist, a suite file that cannot be read stops the run as it does without.

A suite named on the command line is read at start (a usage error); one found by collecting a
directory fails to collect. Without xdist, pytest then grades nothing and exits 2
("Interrupted: 1 error during collection"); xdist's controller would grade the other suites
and exit 1. Registered in xdist's controller, this stops the run the same way, before any
sample is handed out. ``--continue-on-collection-errors`` grades the rest, both ways.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..kinds.registry import kinds_of


class SuiteCollectionErrors:
    """Counts the workers' failed collections; stops the run if one is a suite file's."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.errors = 0  # each failed collection once (xdist passes on one of each)
        self.suite_unreadable = False

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:  # in the controller, only the workers' failures arrive
            self.errors += 1
            path = self.config.rootpath / report.nodeid.split("::", 1)[0]
            if path.is_file() and kinds_of(self.config).claiming(path, explicit=False):
                self.suite_unreadable = True

    @pytest.hookimpl(trylast=True)  # after the run reporter has noted the samples to expect
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if self.suite_unreadable and not self.config.option.continue_on_collection_errors:
            n = self.errors
            raise pytest.Session.Interrupted(f"{n} error{'s' * (n != 1)} during collection")
