"""``--codegen-compare a.jsonl b.jsonl ...``: the runs of several results files compared
(:mod:`.comparison`), as a pytest run that collects and grades nothing, as ``--codegen-merge``
is: the terminal shows the leaderboard, the pairs and the flips; ``--codegen-compare-out``
writes the JSON for scripts and ``--codegen-html`` the comparison page.

Files are named by the flag (repeated) or listed after it: a comparison collects nothing, so
the command line's other arguments can only be more results files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ..output_paths import cannot_write, write_text_file
from ..sample_text import visible
from ..scoring.intervals import interval_text
from ..scoring.passk import per_problem
from ..settings import Settings
from .breakdowns import breakdown_lines
from .comparable import differences, identity
from .comparison import Comparison, Pair, compare_runs
from .merge import refuse_grading_flags, sample_records
from .terminal import aligned

FLAG = "--codegen-compare"
MAX_FLIPS_LISTED = 10


def configure_compare(config: pytest.Config, settings: Settings) -> None:
    """Set up a comparing run: the files read and checked now (a bad one is one line)."""
    refuse_grading_flags(config, FLAG, "compares the runs in its files")
    names = [*settings.compare, *(config.option.file_or_dir or ())]
    try:
        runs = read_runs(Path(config.invocation_params.dir), names, FLAG)
    except ValueError as e:
        raise pytest.UsageError(str(e)) from None
    config.option.file_or_dir = []  # files to compare, not paths to collect
    config.args = []
    # Reading files is nothing to spread over workers: one process, with or without -n.
    if hasattr(config.option, "dist"):
        config.option.dist = "no"
    config.pluginmanager.register(ComparedRuns(settings, runs), "codegen-compare")


def read_runs(base: Path, names: list[str], flag: str) -> list[tuple[str, list[dict[str, Any]]]]:
    """The records of the results files ``names`` (relative to ``base``), checked to be
    comparable; ``ValueError`` with one line, starting with ``flag``, on the first that
    cannot be read or is not like the first file."""
    if len(names) < 2:
        raise ValueError(
            f"{flag} compares two or more results files; got {len(names)}: {', '.join(names)}"
        )
    runs = [(name, sample_records(base / name, flag)) for name in names]
    first_name, first = runs[0]
    ours = identity(first)
    for name, records in runs[1:]:
        # The model is what a comparison compares; nothing else may differ.
        unlike = differences(ours, identity(records), ignore=("model",))
        if unlike:
            raise ValueError(
                f"{flag}: {name} is not comparable with {first_name}: " + "; ".join(unlike)
            )
        # Nothing could be paired: every score n/a (as --codegen-baseline refuses it).
        if not per_problem(first).keys() & per_problem(records).keys():
            raise ValueError(
                f"{flag}: {name} shares no problem with {first_name} (suite and task_id):"
                " nothing to compare"
            )
    return runs


def write_comparison(
    comparison: Comparison, base: Path, json_out: str | None, html_out: str | None
) -> dict[str, tuple[Path, str]]:
    """The comparison's JSON and page, where asked for (paths relative to ``base``); each
    file the file system refused (a full disk) as option -> (path, why)."""
    from .html.compare_page import render_compare_html

    files = {}
    if json_out:
        files["compare_out"] = (base / json_out, json.dumps(comparison.to_json(), indent=2) + "\n")
    if html_out is not None:
        files["html"] = (base / html_out, render_compare_html(comparison))
    refused = {}
    for name, (path, text) in files.items():
        try:
            write_text_file(path, text)
        except OSError as e:
            refused[name] = (path, e.strerror or str(e))
    return refused


class ComparedRuns:
    """Replaces collection and the test loop of a comparing run, and reports it."""

    def __init__(self, settings: Settings, runs: list[tuple[str, list[dict[str, Any]]]]) -> None:
        self.settings = settings
        self.runs = runs
        self.comparison: Comparison | None = None
        self.unwritten: dict[str, tuple[Path, str]] = {}  # option -> (path, why): a full disk

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> bool:
        session.items = []
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        self.comparison = compare_runs(
            self.runs, self.settings.k, date_window=self.settings.date_window
        )
        # Not "no tests collected": every run's samples were read.
        session.testscollected = sum(len(records) for _, records in self.runs)
        session.testsfailed = 0
        # Done with the records: pytest's collections at the session's end walk every live
        # object, and a comparison reads hundreds of thousands.
        self.runs = [(name, []) for name, _ in self.runs]
        return True

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.comparison is None:
            return
        self.unwritten = write_comparison(
            self.comparison,
            Path(session.config.invocation_params.dir),
            self.settings.compare_out,
            self.settings.html,
        )
        for name, (path, reason) in self.unwritten.items():
            sys.stderr.write(f"ERROR: {cannot_write(session.config, name, path, reason)}\n")
        if self.unwritten:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.comparison is None:
            return
        tr = terminalreporter
        tr.write_sep("=", f"codegen: comparison of {len(self.runs)} runs")
        for line in comparison_lines(self.comparison):
            tr.write_line(line)
        if self.settings.compare_out and "compare_out" not in self.unwritten:
            tr.write_line(f"comparison (JSON): {self.settings.compare_out}")
        if self.settings.html is not None and "html" not in self.unwritten:
            tr.write_line(f"comparison page: {self.settings.html}")


def comparison_lines(comparison: Comparison) -> list[str]:
    """The comparison as text: the leaderboard, the pairs, the flips (shown as
    :func:`~pytest_codegen.sample_text.visible` shows text: the results files compared
    name the models, tasks and categories)."""
    return [visible(line) for line in _comparison_text(comparison)]


def _comparison_text(comparison: Comparison) -> list[str]:
    c = comparison
    lines = [
        f"{len(c.problems)} problems graded in every run"
        + (f" ({c.left_out} graded in some runs only are left out)" if c.left_out else "")
        + (f"; intervals clustered by {c.clusters} categories" if c.clusters else "")
    ]
    ranked = sorted(c.runs, key=lambda r: -(r.pass_at_k.get(c.k) or 0.0))
    table = [["rank", "run", "model", *(f"pass@{k}" for k in c.ks)]]
    for rank, run in enumerate(ranked, 1):
        table.append(
            [str(rank), run.name, run.model]
            + [interval_text(run.pass_at_k[k], run.ci[k]) for k in c.ks]
        )
    lines += aligned(table)
    lines.append("pass@k ± its 95% interval (standard error over problems)")
    if not c.pairs:
        return lines + breakdown_lines(c.breakdowns, [r.name for r in c.runs], c.ks)
    lines.append("")
    lines.append(
        f"pairs (pass@{c.k}, a - b): * significant at {c.alpha:g} after Holm's correction "
        f"for {len(c.pairs)} pairs; mdd: the minimum detectable difference (80% power)"
    )
    lines += _pair_table(c.pairs)
    for pair in c.pairs:
        if pair.significant or pair.diff == 0 or abs(pair.diff) >= pair.mdd:
            continue
        more = []
        if pair.problems_needed is not None:
            more.append(f"about {pair.problems_needed} problems like these")
        if pair.samples_needed is not None:
            more.append(f"{pair.samples_needed} samples a problem")
        if more:
            lines.append(
                f"{pair.a} vs {pair.b}: {pair.diff:+.3f} is below the mdd {pair.mdd:.3f};"
                f" it would be detectable with {' or '.join(more)}"
            )
    for k, pairs in sorted(c.by_k.items()):
        if k != c.k and pairs:
            lines.append("")
            lines.append(f"pairs at pass@{k} (Holm's correction over its {len(pairs)} pairs)")
            lines += _pair_table(pairs)
    lines += breakdown_lines(c.breakdowns, [r.name for r in c.runs], c.ks)
    lines.append("")
    for pair in c.pairs:
        if not pair.flips:
            continue
        a_wins = [f for f in pair.flips if f.score_a > f.score_b]
        b_wins = [f for f in pair.flips if f.score_a < f.score_b]
        lines.append(
            f"flips {pair.a} vs {pair.b}: {len(a_wins)} only {pair.a} solves, "
            f"{len(b_wins)} only {pair.b} solves"
        )
        for who, flips in ((pair.a, a_wins), (pair.b, b_wins)):
            if flips:
                shown = ", ".join(f.task_id for f in flips[:MAX_FLIPS_LISTED])
                rest = len(flips) - MAX_FLIPS_LISTED
                lines.append(f"  {who}: {shown}" + (f" and {rest} more" if rest > 0 else ""))
    return lines


def _pair_table(pairs: list[Pair]) -> list[str]:
    table = [["a", "b", "diff", "95% CI", "p", "p (Holm)", "", "mdd", "test"]]
    for pair in pairs:
        table.append(
            [
                pair.a,
                pair.b,
                f"{pair.diff:+.3f}",
                f"[{pair.ci[0]:+.3f}, {pair.ci[1]:+.3f}]",
                f"{pair.p:.3g}",
                f"{pair.p_holm:.3g}",
                "*" if pair.significant else "",
                f"{pair.mdd:.3f}",
                pair.test,
            ]
        )
    return aligned(table)
