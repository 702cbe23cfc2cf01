"""How running a Python sample can go wrong, as exceptions the grader turns into verdicts.

Shared by the sandbox (:mod:`.sandbox`), its launcher (:mod:`.zygote`) and the grader.
"""

from __future__ import annotations

import builtins
from typing import Any


class SampleTimeout(BaseException):
    """The sample ran past its wall-clock limit (BaseException: tests must not catch it)."""


class SampleCrashed(BaseException):
    """The sample's process died, ran out of memory, or broke the protocol."""


class SampleTampered(BaseException):
    """The sample was caught tampering with its grading: a pass it wrote itself (without the
    proof only the real end of its tests can write), a reply of the harness it changed, or
    introspection the harness forbids (see ``verdict_seal.py``)."""


class PlanDiverged(BaseException):
    """The tests asked for something other than the next planned call (see
    :meth:`Sandbox.load`): the sample must be graded again, call by call."""


class CandidateException(Exception):
    """An exception raised by the candidate whose type is not a built-in one."""


def candidate_exception(info: Any) -> BaseException:
    """Rebuild an exception the candidate raised as its type's nearest built-in class (its
    ``base``), so tests like ``except ValueError`` catch a subclass of ValueError as they
    would in one process; one without an :class:`Exception` base of that kind becomes
    :class:`CandidateException`. Its own type's name is kept in ``candidate_type``."""
    if not isinstance(info, dict):
        return SampleCrashed("malformed exception reply")
    name = str(info.get("type", "Exception"))
    message = str(info.get("message", ""))
    base = info.get("base")
    cls = getattr(builtins, base, None) if type(base) is str else None
    exc: BaseException
    if isinstance(cls, type) and issubclass(cls, Exception):
        try:
            exc = cls(message)
        except Exception:
            exc = CandidateException(f"{name}: {message}")
    else:
        exc = CandidateException(f"{name}: {message}")
    exc.candidate_traceback = str(info.get("traceback", ""))  # type: ignore[attr-defined]
    exc.candidate_type = name  # type: ignore[attr-defined]
    return exc
