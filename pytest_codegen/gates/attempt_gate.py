"""The ``--codegen-fail-on-attempts`` gate: the run fails when any sample was flagged with an
attempt on its grading (see :mod:`pytest_codegen.attempts`); verdicts stay as they are."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from ..attempts import summary_line, tally


@dataclasses.dataclass(frozen=True)
class AttemptGateResult:
    """The gate's verdict on a run, shown with the score gates'."""

    passed: bool
    message: str


def check_attempts(records: Iterable[Mapping[str, Any]]) -> AttemptGateResult:
    """Passed when no record holds an attempt."""
    records = list(records)
    flagged, _ = tally(records)
    if not flagged:
        return AttemptGateResult(True, f"no sample flagged with an attempt ({len(records)} graded)")
    line = summary_line(records) or ""
    return AttemptGateResult(
        False, line.removeprefix("attempts: ") + " (--codegen-fail-on-attempts)"
    )
