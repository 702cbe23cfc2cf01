"""The controller side of a build: fragment results in, the suite file and report out.

Registered where the run is reported (the xdist controller, or the only process). Each
fragment's result arrives in its record (``pytest_codegen_sample_graded``); at the end the
kept ones are written as the suite file (``--codegen-build-out``) and the build report next
to it, and the terminal gets the report's lines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ..sample_text import visible
from ..settings import Settings

DEFAULT_OUT = "benchmark.json"


def suite_path(config: pytest.Config, settings: Settings) -> Path:
    """Where the build writes its suite file (``--codegen-build-out``)."""
    out = Path(settings.build_out or DEFAULT_OUT)
    return out if out.is_absolute() else Path(config.invocation_params.dir) / out


class BuildCollector:
    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.out = suite_path(config, settings)
        self.results: dict[str, dict[str, Any]] = {}
        self.records: dict[str, dict[str, Any]] = {}
        self.report: dict[str, Any] | None = None
        self.written = 0
        self.stale: list[str] = []  # node ids of earlier rows dropped as stale

    def pytest_codegen_sample_graded(self, record: dict[str, Any], config: pytest.Config) -> None:
        result = record.get("build")
        if isinstance(result, dict):
            self.results[record["nodeid"]] = result
            self.records[record["nodeid"]] = record

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from ..keys import BUILD_KEY, CONTROLLER_KEY
        from .output import example_row, make_report, report_path, write_suite

        # (The run's shared claims and results are removed with the rest of what its
        # processes share, by RunReporter.close.)
        controller = self.config.stash.get(CONTROLLER_KEY, None)
        if session.config.option.collectonly or not self.results:
            return
        model = self.settings.model or ""
        rows = [
            example_row(result, nodeid, model)
            for nodeid, result in sorted(self.results.items())
            if result["outcome"] == "kept"
        ]
        # API errors were not built: an earlier row of theirs stays.
        rebuilt = {n for n, r in self.results.items() if r["outcome"] != "api_error"}
        collection = self.config.stash[BUILD_KEY]
        written, stale = write_suite(self.out, rows, rebuilt, collection.is_stale)
        self.written, self.stale = len(written), [r["source"]["nodeid"] for r in stale]
        price = controller.price() if controller is not None else None
        self.report = make_report(self.results, price)
        self.report["suite_file"] = str(self.out)
        self.report["examples_in_file"] = self.written
        report_path(self.out).write_text(json.dumps(self.report, indent=1) + "\n")

    def holds_fragments(self) -> bool:
        """Whether the input holds a fragment to build (one that cannot be built counts)."""
        from .inputs import fragments_in, input_files, split_spec

        spec = str(self.settings.build)
        pattern = split_spec(spec)[1]
        files = input_files(spec, Path(self.config.invocation_params.dir))
        return any(fragments_in(file, file.parent, pattern, len(files) == 1) for file in files)

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int) -> None:
        from .inputs import MIN_BODY_LINES
        from .output import report_lines, report_path

        tr = terminalreporter
        # pytest's "no tests ran" alone would not say why (unless -k and the like chose none)
        if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and not self.holds_fragments():
            tr.write_line(
                f"codegen build: {self.settings.build} holds nothing to build (a function is"
                f" taken if public, documented, of at least {MIN_BODY_LINES} lines after its"
                " docstring and not a test, or if PATH::GLOB names it; JSON input by its rows)"
            )
        if self.report is None:
            return
        tr.write_sep(
            "=", f"codegen build: {self.report['kept']} of {self.report['fragments']} kept"
        )
        for line in report_lines(self.report):  # rejection reasons quote the model's code
            tr.write_line(visible(line))
        tr.write_line(f"suite file: {self.out} ({self.written} examples)")
        if self.stale:
            tr.write_line(
                f"  left out {len(self.stale)} examples of an earlier build whose target is"
                f" gone or changed since: {', '.join(self.stale)}"
            )
        tr.write_line(f"build report: {report_path(self.out)}")
