"""A Python sample's exception, out of its tests or its grader, as its :class:`Verdict`: the
candidate's own error, or a failed check named by the test line it failed at."""

from __future__ import annotations

import dataclasses
import traceback

from ... import outcomes
from ...outcomes import Verdict
from .errors import CandidateException


def classify_exception(exc: Exception, test_file: str) -> Verdict:
    """An exception out of the tests: the candidate's own, or a failed check."""
    if hasattr(exc, "candidate_type"):
        kind = exc.candidate_type  # type: ignore[attr-defined]
        message = str(exc) if isinstance(exc, CandidateException) else f"{kind}: {exc}"
        verdict = Verdict(outcomes.ERROR, f"the code raised {message}".strip())
        verdict.stderr = exc.candidate_traceback  # type: ignore[attr-defined]
        return verdict
    where = test_line_of(exc, test_file)
    if isinstance(exc, AssertionError):
        detail = str(exc).strip()
        headline = f"check failed{where}"
        return Verdict(outcomes.FAILED, headline + (f"\n{detail}" if detail else ""))
    return Verdict(outcomes.FAILED, f"check failed{where}\n{type(exc).__name__}: {exc}")


def classify_at(exc: Exception, where: str, rejection: type[Exception]) -> Verdict:
    """A sample's exception at ``where``; ``rejection``, its grader's wrong answer, says it all."""
    if isinstance(exc, rejection):
        return Verdict(outcomes.FAILED, str(exc))
    verdict = classify_exception(exc, "")
    return dataclasses.replace(verdict, message=f"{where}: {verdict.message}")


def test_line_of(exc: BaseException, test_file: str) -> str:
    """`` at line N: <source>`` for the innermost test-code frame of ``exc``."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename == test_file:
            return f" at line {frame.lineno}: {(frame.line or '').strip()}"
    return ""
