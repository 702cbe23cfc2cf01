"""Per-sample records: the one contract for what crosses xdist and what the results file holds.

A record is the JSON-safe dict that describes one sample's fate (:class:`SampleRecord` names
its fields; the README gives their meaning). Workers attach it to their test reports; the
controller (or the only process) receives it in ``pytest_runtest_logreport``. Plain dicts,
not dataclasses, so that xdist's serializer carries them as they are.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, TypedDict

from .. import outcomes
from ..problems import data_identity

ERROR_CHARS = 2000
OUTPUT_CHARS = 4000


class _Required(TypedDict):
    nodeid: str
    suite: str
    task_id: str
    category: str
    sample_index: int
    outcome: str  # one of outcomes.ALL
    passed: bool
    duration_s: float
    model: str
    mode: str
    completion: str | None
    code: str
    error: str


class SampleRecord(_Required, total=False):
    """One sample's record: the fields every record has, then those only some have."""

    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cached: bool
    isolation: str
    tests: list[dict[str, Any]]
    stdout: str
    stderr: str
    reruns: list[str]
    unstable: bool
    repairs: list[dict[str, Any]]
    cost_usd: float
    code_policy: str  # how `code` was taken from `completion`: extract, append or whole
    data: dict[str, Any] | None  # the suite's data: {"name", "version", "sha256"}
    base_outcome: str  # HumanEval+/MBPP+: the outcome on the base inputs alone
    plus_outcome: str  # ... and on the plus inputs alone
    time_limit: dict[str, Any]  # the limit it ran under and how it was derived (time_limits)
    timeout_rerun: bool  # its first run timed out; `outcome` is its second run's
    run: dict[str, Any]  # what makes runs comparable (reporting.comparable)
    attempts: list[dict[str, str]]  # what it tried besides answering (attempts.py)


def make_record(
    *,
    nodeid: str,
    problem: Any,
    sample_index: int,
    outcome: str,
    model: str,
    duration_s: float = 0.0,
    completion: Any = None,
    code: str = "",
    error: str = "",
    verdict: Any = None,
    code_policy: str | None = None,
) -> SampleRecord:
    """The record of one sample (see the README for the meaning of each field);
    ``code_policy`` is given for a sample whose code was graded."""
    record: SampleRecord = {
        "nodeid": nodeid,
        "suite": problem.suite,
        "task_id": problem.id,
        "category": problem.category,
        "sample_index": sample_index,
        "outcome": outcome,
        "passed": outcome == outcomes.PASSED,
        "duration_s": round(duration_s, 4),
        "model": model,
        "mode": verdict.mode if verdict is not None else problem.mode,
        "completion": completion.text if completion is not None else None,
        "code": code,
        "error": short_error(error),
        "attempts": list(getattr(verdict, "attempts", None) or ()),
    }
    data = data_identity(problem)
    if data is not None:
        record["data"] = data
    if completion is not None:
        record.update(generation_fields(completion))
    if code_policy is not None:
        record["code_policy"] = code_policy
    if verdict is not None:
        record["isolation"] = verdict.isolation
        if verdict.time_limit is not None:
            record["time_limit"] = verdict.time_limit
        record["tests"] = verdict.tests
        record["stdout"] = _truncate(verdict.stdout, OUTPUT_CHARS, keep="end")
        record["stderr"] = _truncate(verdict.stderr, OUTPUT_CHARS, keep="end")
    return record


_NODE = re.compile(r"^(?P<file>.*?)::(?P<name>.*)\[s(?P<index>\d+)\]$")


def missing_record(nodeid: str, model: str, reason: str, problem: Any = None) -> SampleRecord:
    """A record for a sample that never reported (its worker died, the run was cut short):
    suite, task id and category are its ``problem``'s, or without one read off the node id
    (the file's name, the problem's node name)."""
    match = _NODE.match(nodeid)
    file, name, index = (
        (match["file"], match["name"], int(match["index"])) if match else (nodeid, nodeid, 0)
    )
    return {
        "nodeid": nodeid,
        "suite": problem.suite if problem is not None else Path(file).name,
        "task_id": problem.id if problem is not None else name,
        "category": problem.category if problem is not None else "",
        "sample_index": index,
        "outcome": outcomes.MISSING,
        "passed": False,
        "duration_s": 0.0,
        "model": model,
        "mode": "",
        "completion": None,
        "code": "",
        "error": reason,
        "attempts": [],
    }


def generation_fields(completion: Any) -> dict[str, Any]:
    """What a record keeps of how a completion was generated (tokens, latency, cache)."""
    fields = ("prompt_tokens", "completion_tokens", "latency_s", "cached")
    return {
        f: getattr(completion, f) for f in fields if getattr(completion, f) not in (None, False)
    }


def short_error(text: str | None) -> str:
    """An error message as records keep it."""
    return _truncate(text, ERROR_CHARS)


def _truncate(text: str | None, limit: int, keep: str = "start") -> str:
    text = text or ""
    if len(text) <= limit:
        return text
    return text[:limit] + " [...]" if keep == "start" else "[...] " + text[-limit:]
