"""The tripwire: notices when the first samples of a suite all fail the same way (no code in
the replies, every sample a SyntaxError, a missing module, the API failing, ...) and says so at
once instead of after the whole run. Also :func:`unstable`: the samples whose outcome changed
when they were graded again."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .. import outcomes
from ..sample_text import visible

# Failure kinds the tripwire recognizes, and what a whole run of them most likely means.
UNEXTRACTABLE = "unextractable"
SYNTAX = "syntax"
MISSING_MODULE = "missing module"
NODE_ENV = "node environment"
TIMEOUT = "timeout"
CRASHED = "crashed"
API_ERROR = "api error"

_DIAGNOSES = {
    UNEXTRACTABLE: "every one unextractable — the replies contain no code",
    SYNTAX: "every one a SyntaxError — the extracted code does not compile "
    "(check the prompt format and the code extraction)",
    MISSING_MODULE: "every one a missing module — the grading environment lacks a package "
    "the code imports",
    NODE_ENV: "every one failed in the Node/Jest environment — check the Node/Jest toolchain "
    "(node, npm install of the suite's packages)",
    TIMEOUT: "every one timed out — the time limit may be too low or the machine overloaded",
    CRASHED: "every one crashed — the sandbox or the grader is failing (memory limit?)",
    API_ERROR: "every one an API error — the model API is failing (key, model name, quota?)",
}

_NODE_ENV = re.compile(
    r"Cannot find module|jest-environment|test environment .*(?:cannot be found|not found)"
    r"|Jest runner failed|cannot start .*node|no npm found|Node\.js .*not found"
    r"|grader's guard did not finish",
    re.IGNORECASE,
)
_MISSING_MODULE = re.compile(r"ModuleNotFoundError|No module named")
_SYNTAX = re.compile(r"\b(?:SyntaxError|IndentationError|TabError)\b")
_HEADLINE_CHARS = 100


def failure_kind(record: Mapping[str, Any]) -> str | None:
    """The tripwire kind of a record's failure, ``None`` for a pass or an unrecognized failure.

    Environment causes are looked for before the outcome: a Jest runner that cannot start
    shows up as ``crashed``, but the toolchain is the thing to fix.
    """
    outcome = record.get("outcome")
    if outcome == outcomes.PASSED:
        return None
    if outcome == outcomes.API_ERROR:
        return API_ERROR
    if outcome == outcomes.UNEXTRACTABLE:
        return UNEXTRACTABLE
    if outcome == outcomes.TIMEOUT:
        return TIMEOUT
    error = str(record.get("error") or "")
    if outcome in (outcomes.ERROR, outcomes.FAILED, outcomes.CRASHED):
        if _NODE_ENV.search(error):
            return NODE_ENV
        if _MISSING_MODULE.search(error):
            return MISSING_MODULE
    if outcome == outcomes.ERROR and _SYNTAX.search(error):
        return SYNTAX
    if outcome == outcomes.CRASHED:
        return CRASHED
    return None


class Tripwire:
    """Diagnoses a suite whose first ``first_n`` samples all failed the same way.

    Feed it every record as it arrives. Missing samples are ignored; API errors count although
    they are not graded (a failing API is exactly what to report early). A pass, or a failure
    of another kind, among the first ``first_n`` disarms it for that suite. Each suite is
    diagnosed at most once.
    """

    def __init__(self, first_n: int = 20) -> None:
        if first_n < 1:
            raise ValueError(f"first_n must be at least 1, not {first_n}")
        self.first_n = first_n
        self._kind: dict[str, str] = {}  # suite -> the kind every sample so far failed with
        self._seen: dict[str, int] = {}
        self._example: dict[str, str] = {}
        self._done: set[str] = set()  # disarmed or already diagnosed
        self._tripped: set[str] = set()

    def observe(self, record: Mapping[str, Any]) -> str | None:
        """Account for one record; return the one-line diagnosis when it trips, else None."""
        suite = str(record.get("suite", ""))
        if suite in self._done or record.get("outcome") == outcomes.MISSING:
            return None
        kind = failure_kind(record)
        if kind is None or self._kind.setdefault(suite, kind) != kind:
            self._done.add(suite)
            return None
        self._seen[suite] = self._seen.get(suite, 0) + 1
        self._example.setdefault(suite, _headline(record.get("error")))
        if self._seen[suite] < self.first_n:
            return None
        self._done.add(suite)
        self._tripped.add(suite)
        example = self._example[suite]
        # The first error says which module, which setting, which API message.
        detail = f" (first: {example})" if example and kind != UNEXTRACTABLE else ""
        return f"first {self.first_n} samples of {suite}: {_DIAGNOSES[kind]}{detail}"

    def tripped(self, suite: str) -> bool:
        return suite in self._tripped


def _headline(error: Any) -> str:
    """The first line of a sample's error, for the terminal: its controls made visible."""
    lines = [line.strip() for line in str(error or "").splitlines() if line.strip()]
    if not lines:
        return ""
    first = visible(lines[0])
    return first if len(first) <= _HEADLINE_CHARS else first[: _HEADLINE_CHARS - 3] + "..."


def unstable(first: Mapping[str, str], reruns: Mapping[str, Sequence[str]]) -> set[str]:
    """Node ids whose outcome was not the same in the first run and every rerun.

    A node id with reruns but no first outcome is judged on its reruns alone.
    """
    flaky = set()
    for nodeid, later in reruns.items():
        seen = set(later)
        if nodeid in first:
            seen.add(first[nodeid])
        if len(seen) > 1:
            flaky.add(nodeid)
    return flaky
