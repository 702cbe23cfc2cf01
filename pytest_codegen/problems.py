"""What a benchmark is made of: problems, grouped in suites.

Every suite format (HumanEval JSONL, Exec-CSN JSON, WebApp1K test trees, ...) is read into these
plain objects by the loader of its kind (:mod:`pytest_codegen.kinds`); every later stage only
sees them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

# How a sample of a problem is graded; the execute stage dispatches on it.
MODE_PYTHON_CALL = "python-call"  # tests in a trusted process call the candidate in a sandbox
MODE_PYTHON_PROGRAM = "python-program"  # sample and tests run together in the sandbox
MODE_JEST = "jest"  # a React component graded by its Jest test file
# HumanEval+/MBPP+: the candidate's outputs compared with the canonical solution's, in here
MODE_EVALPLUS = "evalplus"
# Programs in other languages (MultiPL-E, HumanEval-X), built and run in the sandbox
MODE_MULTIPL_E = "multipl-e"
MODE_HUMANEVAL_X = "humaneval-x"


@dataclasses.dataclass(frozen=True)
class Problem:
    """One benchmark task.

    ``prompt`` is what the model sees; ``tests`` is what grades it (its shape depends on
    ``mode``); ``reference`` is a known-good completion in the same form a model returns.
    ``extra`` keeps format-specific fields the executor needs (entry point, masked program,
    the file name a React test imports, ...). Everything here is plain data.
    """

    id: str
    suite: str
    category: str
    language: str
    mode: str
    prompt: str
    tests: str
    reference: str | None = None
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def node_name(self) -> str:
        """The problem id as it appears in pytest node ids."""
        return sanitize_node_name(self.id)


# Fields of ``Problem.extra`` any stage may read, whatever the kind: read and written through
# the functions below. (A kind's own fields are its business: kinds/fields.py.)
_TIMEOUT, _MEMORY, _STDERR_WORDS = "timeout_s", "memory_limit_bytes", "stderr_fail_words"
_DATA, _UNSOLVABLE = "data", "unsolvable"


@dataclasses.dataclass(frozen=True)
class SuiteLimits:
    """The limits a suite states for its problems' samples (Exec-CSN's harness: 10 s, 4 GiB,
    failing words on stderr; EvalPlus: 4 GiB); None or empty where it states none."""

    timeout_s: float | None = None
    memory_limit_bytes: int | None = None
    stderr_fail_words: tuple[str, ...] = ()

    def to_extra(self) -> dict[str, Any]:
        """The fields of ``Problem.extra`` that state these limits."""
        extra: dict[str, Any] = {}
        if self.timeout_s is not None:
            extra[_TIMEOUT] = self.timeout_s
        if self.memory_limit_bytes is not None:
            extra[_MEMORY] = self.memory_limit_bytes
        if self.stderr_fail_words:
            extra[_STDERR_WORDS] = list(self.stderr_fail_words)
        return extra


def suite_limits(problem: Problem) -> SuiteLimits:
    extra = problem.extra
    return SuiteLimits(
        timeout_s=float(extra[_TIMEOUT]) if _TIMEOUT in extra else None,
        memory_limit_bytes=int(extra[_MEMORY]) if _MEMORY in extra else None,
        stderr_fail_words=tuple(extra.get(_STDERR_WORDS, ())),
    )


def data_identity(problem: Problem) -> dict[str, Any] | None:
    """The identity of the suite's data (see ``datasets``), once the suite is read."""
    return problem.extra.get(_DATA)


def stamp_data(problem: Problem, data: dict[str, Any] | None) -> None:
    problem.extra[_DATA] = data


def unsolvable_reason(problem: Problem) -> str:
    """Why the problem cannot be solved as shipped ("" if it can)."""
    return str(problem.extra.get(_UNSOLVABLE) or "")


def mark_unsolvable(problem: Problem, reason: str) -> None:
    problem.extra[_UNSOLVABLE] = reason


class SuiteError(Exception):
    """A suite file that cannot be read; the message names the file and what is wrong."""


# \w: letters and digits of every script and "_" (in ASCII the A-Za-z0-9_ names had always).
_UNSAFE = re.compile(r"[^\w.\-]+")
# A character dropped that no ASCII id has: another script's punctuation, symbol or space.
_DROPPED_OTHER = re.compile(r"[^\w.\-\x00-\x7f]")


def sanitize_node_name(problem_id: str) -> str:
    """Map a problem id to a node-id-safe name (``HumanEval/0`` -> ``HumanEval_0``,
    ``задача/один`` -> ``задача_один``).

    ``::``, ``[``, ``]``, ``/`` and spaces all have a meaning on pytest's command line, so a
    pasted node id only works if the name avoids them. Letters and digits of any script are
    kept; an id that loses a character outside ASCII (``🙂/1``) ends in a short hash of
    itself, so that such ids do not share a name. An ASCII id's name is as it always was.
    """
    name = _UNSAFE.sub("_", problem_id).strip("_") or "problem"
    if not problem_id.isascii() and _DROPPED_OTHER.search(problem_id):
        digest = hashlib.sha256(problem_id.encode("utf-8", "surrogatepass")).hexdigest()
        name = f"{name}-{digest[:8]}"
    return name


def distinct_node_names(where: str, problems: list[Problem]) -> None:
    """Raise :class:`SuiteError` if two of the problems read from ``where`` have one node
    name (``a/b`` and ``a b``): pytest could not tell their samples apart."""
    seen: dict[str, str] = {}
    for problem in problems:
        name = problem.node_name
        if name in seen:
            raise SuiteError(
                f"{where}: problems {seen[name]!r} and {problem.id!r} map to the same "
                f"node name {name!r}"
            )
        seen[name] = problem.id


# What graders compute from a problem once, for all its samples: (id, name) -> (the problem,
# weakly; the value). An entry goes when its problem does.
_DERIVED: dict[tuple[int, str], tuple[weakref.ref[Problem], Any]] = {}


def derived(problem: Problem, name: str, compute: Callable[[], T]) -> T:
    """``compute()`` for ``problem`` once in this process (the grader's view of a problem,
    such as its inputs encoded for the wire), remembered while the problem lives. A
    problem's fields do not change once it is loaded."""
    slot = (id(problem), name)
    found = _DERIVED.get(slot)
    if found is not None and found[0]() is problem:
        return found[1]  # type: ignore[no-any-return]
    value = compute()
    _DERIVED[slot] = (weakref.ref(problem, lambda _, slot=slot: _DERIVED.pop(slot, None)), value)
    return value
