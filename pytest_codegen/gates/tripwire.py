"""The tripwire: notices when the first samples of a suite all fail the same way (no code in
the replies, every sample a SyntaxError, a missing module, the API failing, ...) and says so at
once instead of after the whole run. Also :func:`unstable`: the samples whose outcome changed
when they were graded again."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import outcomes
from ..generation.filestate import SharedState
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

    With ``state_file`` the count is that of every process sharing the file (xdist's local
    workers, :mod:`~pytest_codegen.generation.filestate`): the first ``first_n`` samples of
    the run, whichever worker graded them, as without xdist.
    """

    def __init__(self, first_n: int = 20, state_file: Path | None = None) -> None:
        if first_n < 1:
            raise ValueError(f"first_n must be at least 1, not {first_n}")
        self.first_n = first_n
        # suite -> {"kind": what every sample so far failed with, "seen", "example",
        # "done": disarmed or diagnosed, "reason": the diagnosis}
        self._state = SharedState(state_file)
        # Suites whose entry is done, with their diagnosis (None: disarmed): it never changes
        # again, so a healthy run stops taking turns at the shared file after its first pass.
        self._final: dict[str, str | None] = {}

    def observe(self, record: Mapping[str, Any]) -> str | None:
        """Account for one record; return the one-line diagnosis when it trips, else None."""
        suite = str(record.get("suite", ""))
        if suite in self._final or record.get("outcome") == outcomes.MISSING:
            return None
        kind = failure_kind(record)
        with self._state.edit() as state:
            entry = state.setdefault(suite, {"kind": kind, "seen": 0, "done": False})
            if entry["done"]:
                self._final[suite] = entry.get("reason")
                return None
            if kind is None or entry["kind"] != kind:
                entry["done"] = True
                self._final[suite] = None
                return None
            entry["seen"] += 1
            entry.setdefault("example", _headline(record.get("error")))
            if entry["seen"] < self.first_n:
                return None
            entry["done"] = True
            example = entry["example"]
            # The first error says which module, which setting, which API message.
            detail = f" (first: {example})" if example and kind != UNEXTRACTABLE else ""
            entry["reason"] = f"first {self.first_n} samples of {suite}: {_DIAGNOSES[kind]}{detail}"
            self._final[suite] = entry["reason"]
            return entry["reason"]

    def reason(self, suite: str) -> str | None:
        """The diagnosis of ``suite`` if it tripped (in this process or another sharing the
        state), else None."""
        if suite in self._final:
            return self._final[suite]
        with self._state.edit() as state:
            entry = dict(state.get(suite) or {})
        if entry.get("done"):
            self._final[suite] = entry.get("reason")
        return entry.get("reason")

    def tripped(self, suite: str) -> bool:
        return self.reason(suite) is not None


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
