"""Per-sample records: the one contract for what crosses xdist and what the results file holds.

A record is the JSON-safe dict that describes one sample's fate (:class:`SampleRecord` names
its fields, and the comment above each field gives its meaning: the documentation's
results reference is generated from them). Workers attach it to their test reports; the
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
# The finish_reason of an answer cut at the token limit: OpenAI's (and every compatible
# server's), Anthropic's stop_reason, Gemini's finishReason.
CUT_AT_TOKEN_LIMIT = frozenset({"length", "max_tokens", "MAX_TOKENS"})


class _Required(TypedDict):
    #: The sample's pytest node id, ``<suite file>::<problem id>[s<i>]``.
    nodeid: str
    #: The suite's name (a built-in suite's name, or its file's name).
    suite: str
    #: The problem's id as its suite gives it (``HumanEval/7``).
    task_id: str
    #: The problem's category, or ``""`` when its suite has none.
    category: str
    #: Which of the problem's samples this is, from 0.
    sample_index: int
    #: The verdict: one of the outcomes of :mod:`pytest_codegen.outcomes` (listed with their
    #: meaning below this table).
    outcome: str
    #: Whether ``outcome`` is ``passed``.
    passed: bool
    #: Seconds spent grading the sample.
    duration_s: float
    #: The ``--codegen-model`` spec that wrote it.
    model: str
    #: How it was graded: the name of its problem's kind (the benchmark kinds are listed
    #: below this table).
    mode: str
    #: The answer as the model gave it (a raw reply, or a replayed completion); ``null`` when
    #: there was none.
    completion: str | None
    #: The code that was run, taken from ``completion`` as ``code_policy`` says.
    code: str
    #: The failure's headline, cut to 2000 characters; ``""`` for a pass.
    error: str


class SampleRecord(_Required, total=False):
    """One sample's record: the fields every record has, then those only some have."""

    #: Prompt tokens of the request that produced it, where the provider says.
    prompt_tokens: int
    #: Completion tokens of its answer, where the provider says.
    completion_tokens: int
    #: Seconds the model request took.
    latency_s: float
    #: Why the model stopped, as its provider says: ``length`` (OpenAI-compatible),
    #: ``max_tokens`` (Anthropic) or ``MAX_TOKENS`` (Gemini) for an answer cut at the token
    #: limit (``--codegen-max-tokens``; the summary counts them), ``stop``, ``end_turn``,
    #: ``STOP`` for one it finished, ...
    finish_reason: str
    #: Whether the answer came from the generation cache.
    cached: bool
    #: What confined its process: ``namespaces+uid+landlock``, ``rlimits+landlock``, ...
    isolation: str
    #: The tests it ran and their results, where its kind reports them one by one.
    tests: list[dict[str, Any]]
    #: The last 4000 characters the sample printed to stdout (flushed or not).
    stdout: str
    #: ... and to stderr.
    stderr: str
    #: The outcomes of its ``--codegen-reruns``.
    reruns: list[str]
    #: Whether a rerun's verdict differed from the first.
    unstable: bool
    #: Its ``--codegen-repair-rounds``: each round's answer and verdict.
    repairs: list[dict[str, Any]]
    #: What its request cost, from ``--codegen-prices``.
    cost_usd: float
    #: How ``code`` was taken from ``completion``: ``extract``, ``append`` or ``whole``.
    code_policy: str
    #: The suite's data: ``{"name", "version", "sha256"}`` (``version`` null for a suite
    #: given as a path).
    data: dict[str, Any] | None
    #: HumanEval+/MBPP+: the outcome on the base inputs alone.
    base_outcome: str
    #: HumanEval+/MBPP+: the outcome on the plus inputs alone.
    plus_outcome: str
    #: The time limit it ran under and how it was derived: ``limit_s``, ``source``
    #: (``reference``, ``floor``, ``cap`` or ``own``), ``cap_s``, ``floor_s``, ``factor``,
    #: ``reference_s`` and the host's ``calibration``.
    time_limit: dict[str, Any]
    #: Its first run timed out; ``outcome`` is its second run's.
    timeout_rerun: bool
    #: What makes runs comparable: harness, Python (and Node) versions, the model's
    #: parameters, the timeout policy and the other limits.
    run: dict[str, Any]
    #: The problem's difficulty, where its suite rates its problems (LiveCodeBench:
    #: ``easy``, ``medium``, ``hard``; APPS: ``introductory``, ``interview``, ``competition``).
    difficulty: str
    #: When the problem's contest took place (ISO date, with its time), where its suite dates
    #: its problems (LiveCodeBench's ``contest_date``): summaries and comparisons break scores
    #: down by windows of it.
    contest_date: str
    #: What it tried besides answering, as ``{"category", "evidence"}`` (empty when nothing
    #: was seen; the categories are in ``pytest_codegen.attempts``).
    attempts: list[dict[str, str]]


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
    """The record of one sample (:class:`SampleRecord` gives the meaning of each field);
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
    """What a record keeps of how a completion was generated (tokens, latency, why it
    stopped, cache)."""
    fields = ("prompt_tokens", "completion_tokens", "latency_s", "finish_reason", "cached")
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
