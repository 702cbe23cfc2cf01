"""``--codegen-merge a.jsonl b.jsonl ...``: the results files of several runs (the shards of a
CI matrix) reported as one run.

A pytest run that collects and grades nothing: the controller's
:class:`~pytest_codegen.controller.RunReporter` is given the files' records instead, and
then does what it does at the end of any run (the summary table, ``--codegen-html``,
``--codegen-results``, ``--codegen-fail-under`` and ``--codegen-baseline``) with the same
code, so the merged report and gate decision are those of one unsharded run. A flag rather
than a command of its own: the gates, reports and their options are already pytest's, and
the exit status follows the same rules (1 when a sample failed, or as the gates decide).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .. import outcomes
from ..keys import CONTROLLER_KEY
from ..options import OPTIONS
from ..settings import Settings
from .comparable import first_difference
from .results import SCORED_FIELDS, load_sample_records


def read_merged(config: pytest.Config, paths: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every record of the files, in order; ``UsageError`` (one line) on one that cannot be
    read, holds a line that is not a sample record, or is not comparable with the others
    (see :mod:`.comparable`)."""

    records: list[dict[str, Any]] = []
    files: list[tuple[str, list[dict[str, Any]]]] = []
    for name in paths:
        loaded = read_sample_records(config, "--codegen-merge", name)
        records.extend(loaded)
        files.append((name, loaded))
    unlike = first_difference(files)
    if unlike:
        raise pytest.UsageError(f"--codegen-merge: {unlike}")
    return records


def read_sample_records(config: pytest.Config, flag: str, name: str) -> list[dict[str, Any]]:
    """The records of the results file ``name`` (relative to where pytest was started);
    ``UsageError`` (one line, starting with ``flag``) on a file that cannot be read or a line
    that is not a sample record."""
    try:
        return sample_records(Path(config.invocation_params.dir) / name, flag)
    except ValueError as e:
        raise pytest.UsageError(str(e)) from None


def sample_records(path: Path, flag: str) -> list[dict[str, Any]]:
    """The records of the results file at ``path``; ``ValueError`` (one line, starting with
    ``flag``) on a file that cannot be read or a line that is not a sample record."""
    try:
        return load_sample_records(path, ("nodeid", *SCORED_FIELDS))
    except (OSError, ValueError) as e:
        raise ValueError(f"{flag}: {e}") from None


def configure_merge(config: pytest.Config, settings: Settings) -> None:
    """Set up a merging run: nothing collected, the files' records reported."""
    from ..controller import RunReporter

    refuse_grading_flags(config, "--codegen-merge", "reports the runs in its files")
    records = read_merged(config, settings.merge)
    # Reading files is nothing to spread over workers: one process, with or without -n.
    if hasattr(config.option, "dist"):
        config.option.dist = "no"
    collector = config.stash[CONTROLLER_KEY] = RunReporter(config, settings)
    collector.model_spec = ", ".join(sorted({str(r["model"]) for r in records if r.get("model")}))
    config.pluginmanager.register(collector, "codegen-controller")
    config.pluginmanager.register(MergedRun(collector, records), "codegen-merge")


# Flags that ask a run to generate or grade, which a merge does not: given on the command line
# with --codegen-merge they would be ignored (an ini file may hold them for the other runs).
GRADING_FLAGS = ("model", "suite", "samples", "build", "shard", "resume")


def refuse_grading_flags(config: pytest.Config, flag: str, what: str) -> None:
    """``UsageError`` for a flag that asks to generate or grade, given with ``flag`` (which
    ``what`` and grades nothing)."""
    for opt in OPTIONS:
        if opt.name in GRADING_FLAGS and config.getoption(opt.flag_name) not in (None, [], False):
            raise pytest.UsageError(
                f"{flag} {what} and grades nothing:"
                f" {opt.flag_name} would not be used (drop it, or run without {flag})"
            )


class MergedRun:
    """Replaces collection and the test loop of a merging run."""

    def __init__(self, collector: Any, records: list[dict[str, Any]]) -> None:
        self.collector = collector
        self.records = records

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> bool:
        session.items = []
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        # A sample given twice (a shard rerun, a file named twice): the later record counts,
        # and the merged results file holds it once.
        for record in {r["nodeid"]: r for r in self.records}.values():
            self.collector.keep(record)
        kept = self.collector.records.values()
        session.testscollected = len(kept)
        # As in the runs merged: a failed sample fails the run unless a gate decides.
        session.testsfailed = sum(r["outcome"] in outcomes.FAILING for r in kept)
        return True
