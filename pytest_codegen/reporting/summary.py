"""The run's terminal summary: pass@k per suite and category, the gates, the comparison
with a baseline, and what the run did beside grading (reruns, stops, lost hosts, generation)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from .. import outcomes
from ..datasets.content import describe_all
from ..kinds.registry import kinds_of
from ..sample_text import VisibleLines
from ..scoring.passk import repair_curve
from .breakdowns import window_lines
from .terminal import attempt_lines, format_table, generation_lines, repair_lines, sampling_lines

if TYPE_CHECKING:
    from ..controller import RunReporter


def write_summary(tr: Any, reporter: RunReporter, exitstatus: int) -> None:
    """Write the summary of ``reporter``'s run, which ends with ``exitstatus``, to the
    terminal reporter ``tr``."""
    tr = VisibleLines(tr)  # records may come from another run's file (merge, resume)
    data = describe_all(reporter.records.values())  # "webapp1k 0089530 sha256:4137fd4f4bd8"
    # The models the records name (a conftest.py's own codegen_model names its samples).
    named = sorted({str(r.get("model")) for r in reporter.records.values() if r.get("model")})
    models = ", ".join(named) or reporter.model_spec
    tr.write_sep("=", f"codegen: pass@k of {models}" + (f" on {data}" if data else ""))
    for line in reporter.samples_notes:
        tr.write_line(line, yellow=True)
    if not reporter.rows:
        if reporter.empty_shard:
            shard = f"{reporter.settings.shard[0]}/{reporter.settings.shard[1]}"
            tr.write_line(f"no samples were graded: shard {shard} holds none of the problems")
        else:
            tr.write_line("no samples were graded")
        return
    for line in format_table(reporter.rows, reporter.settings.k):
        tr.write_line(line)
    unanswered = sum(r.get("error") == outcomes.NO_SUCH_SAMPLE for r in reporter.records.values())
    if unanswered:  # said in words too: a run where every sample is missing still exits 0
        tr.write_line(
            f"missing: {unanswered} of {len(reporter.records)} samples have no answer from "
            f"{reporter.model_spec} (skipped, left out of pass@k)",
            yellow=True,
        )
    defaulted = {
        kind.name: (kind.sampling_defaults, reporter.settings.defaulted(kind.sampling_defaults))
        for kind in kinds_of(reporter.config)
    }
    for line in sampling_lines(reporter.records.values(), defaulted):
        tr.write_line(line)
    records = list(reporter.records.values())
    settings = reporter.settings
    for line in window_lines(records, "pass@k", settings.k, settings.date_window):
        tr.write_line(line)
    withheld = gate_withheld(reporter, exitstatus)
    for gate in reporter.gate_results:
        passed = "threshold met: " if withheld else "gate passed: "
        tr.write_line(
            (passed if gate.passed else "GATE FAILED: ") + gate.message,
            red=not gate.passed,
            green=gate.passed and not withheld,
        )
    if withheld:
        tr.write_line(f"GATE FAILED: the scores passed, but {withheld}", red=True)
    if reporter.unfinished:
        tr.write_line(
            f"not graded: the run ended before {reporter.unfinished} of {len(reporter.records)} "
            "samples were graded (missing; --codegen-resume grades them)",
            yellow=True,
        )
    if reporter.settings.gated:
        for line in not_graded_lines(reporter):
            tr.write_line(line, yellow=True)
    graded = [r for r in reporter.records.values() if "build" not in r]
    for line in attempt_lines(graded):
        tr.write_line(line, yellow=True)
    if reporter.comparison is not None:
        tr.write_sep("-", f"compared with baseline {reporter.settings.baseline}")
        for line in reporter.comparison.lines():
            tr.write_line(line)
    unstable = sorted(r["nodeid"] for r in reporter.records.values() if r.get("unstable"))
    if unstable:
        shown = ", ".join(unstable[:10]) + (
            f" and {len(unstable) - 10} more" if len(unstable) > 10 else ""
        )
        tr.write_line(
            f"unstable verdicts: {len(unstable)} samples changed outcome when rerun: {shown}",
            yellow=True,
        )
    reran = [r for r in reporter.records.values() if r.get("timeout_rerun")]
    if reran:
        again = sum(r["outcome"] == outcomes.TIMEOUT for r in reran)
        tr.write_line(
            f"timeouts run again: {len(reran)} samples timed out once; {again} timed out "
            f"again, {len(reran) - again} did not and count as their second run went",
            yellow=True,
        )
    for _suite, reason in sorted(reporter.stopped.items()):
        tr.write_line(f"stopped early: {reason}", yellow=True)
    if reporter.hosts_gone:
        tr.write_line(
            f"host {', '.join(reporter.hosts_gone)} went away and takes no new worker: the run "
            "ended with what was graded (rerun with --codegen-resume for the rest)",
            yellow=True,
        )
    if reporter.settings.html is not None and "html" not in reporter.unwritten:
        tr.write_line(f"html report: {reporter.settings.html}")
    if reporter.settings.repair_rounds:
        curve = repair_curve(reporter.records.values(), reporter.settings.repair_rounds)
        for line in repair_lines(curve):
            tr.write_line(line)
    if reporter.generation_stats:
        for line in generation_lines(
            reporter.generation_stats, reporter.records.values(), reporter.price()
        ):
            tr.write_line(line)
    if reporter.results is not None and reporter.results.error is None:  # else an ERROR line
        tr.write_line(f"results: {reporter.results.path}")


def gate_withheld(reporter: RunReporter, exitstatus: int) -> str | None:
    """Why a gate whose scores passed did not pass the run (samples it did not judge, the
    run interrupted: see ``RunReporter.apply_gates``), or None."""
    if not reporter.settings.gated or not reporter.scores_passed:
        return None
    unjudged = sum(reporter.not_graded().values())
    reasons = [
        *([f"{unjudged} of {len(reporter.records)} samples were not graded"] if unjudged else []),
        *([_not_collected(reporter.collection_errors)] if reporter.collection_errors else []),
    ]
    if reasons:
        return " and ".join(reasons) + " (below)"
    return "the run was interrupted" if exitstatus == pytest.ExitCode.INTERRUPTED else None


def not_graded_lines(reporter: RunReporter) -> list[str]:
    """What a passed gate did not judge and does not clear: the samples left out of pass@k
    (those the run ended before grading have their own line) and the files not collected."""
    counts = reporter.not_graded()
    total = len(reporter.records)
    missing = counts[outcomes.MISSING] - reporter.unfinished
    why = {
        outcomes.API_ERROR: "the model's API failed on {n} of {total} samples",
        outcomes.MISSING: "{n} of {total} samples are missing",
        outcomes.QUARANTINED: "{n} of {total} samples are of quarantined problems",
    }
    shown = {**counts, outcomes.MISSING: missing}
    lines = [
        f"not graded: {text.format(n=shown[outcome], total=total)} "
        "(left out of pass@k; a passed gate does not clear them)"
        for outcome, text in why.items()
        if shown[outcome]
    ]
    if reporter.collection_errors:
        lines.append(
            f"not graded: {_not_collected(reporter.collection_errors)}, "
            "their samples with them (a passed gate does not clear them)"
        )
    return lines


def _not_collected(files: int) -> str:
    return f"{files} file{'s' if files > 1 else ''} could not be collected"
