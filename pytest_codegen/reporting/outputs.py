"""What a run writes at its end besides the terminal summary: the scores as JUnit XML
properties, the HTML report; and the line that says a file it writes could not be."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..output_paths import cannot_write
from ..pytest_internals import junitxml_of

if TYPE_CHECKING:
    from ..controller import RunReporter


def write_reports(reporter: RunReporter) -> None:
    """The scores of ``reporter``'s run into the JUnit XML file and the HTML report."""
    rows = [r.to_json() for r in reporter.rows or []]
    xml = junitxml_of(reporter.config)
    if xml is not None:
        for row in rows:
            if row["category"] is None:
                for k, value in row["pass_at_k"].items():
                    xml.add_global_property(
                        f"codegen:{row['suite']}:pass@{k}",
                        "n/a" if value is None else f"{value:.4f}",
                    )
                    ci = row["ci"].get(k)
                    xml.add_global_property(
                        f"codegen:{row['suite']}:pass@{k}:ci95",
                        "n/a" if ci is None else f"{ci[0]:.4f} {ci[1]:.4f}",
                    )
    settings = reporter.settings
    if settings.html is not None:
        from .. import __version__
        from .html import write_html

        meta = {
            "model": reporter.model_spec,
            "k": list(settings.k),
            "date_window": settings.date_window,
            "duration_s": round(time.time() - reporter.started_at, 2),
            "pytest_version": pytest.__version__,
            "plugin_version": __version__,
        }
        try:
            write_html(settings.html, list(reporter.records.values()), rows, meta)
        except OSError as e:  # a full disk: the summary and the JUnit XML are still written
            reporter.unwritten["html"] = (Path(settings.html), e.strerror or str(e))


def tell_unwritten(reporter: RunReporter, session: pytest.Session) -> None:
    """A file the file system refused (a full disk) is told as a path that cannot be written
    is at the start: one line each, and the run fails."""
    lines = [
        cannot_write(reporter.config, name, path, reason)
        for name, (path, reason) in reporter.unwritten.items()
    ]
    results = reporter.results
    if results is not None and results.error is not None:
        line = cannot_write(reporter.config, "results", results.path, results.error)
        lines.append(
            f"{line}: it holds the first {results.written} of {len(reporter.records)}"
            " records (--codegen-resume grades the rest)"
        )
    for line in lines:
        sys.stderr.write(f"ERROR: {line}\n")
    if lines and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        session.exitstatus = pytest.ExitCode.USAGE_ERROR
