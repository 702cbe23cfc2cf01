"""Generation stage: a model turns a problem's prompt into completions.

The :class:`Model` interface is what every source of code implements: the built-in
``reference`` and ``replay:PATH`` models here, the HTTP providers in
:mod:`pytest_codegen.providers`, and any object a conftest.py returns from its own
``codegen_model`` fixture.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .problems import MODE_JEST, MODE_PYTHON_PROGRAM, Problem


@dataclasses.dataclass(frozen=True)
class SamplingParams:
    """Decoding parameters; ``None`` means "the provider's default, not sent"."""

    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    max_tokens: int | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    seed: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """The parameters that are set, for request bodies and cache keys."""
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}


@dataclasses.dataclass(frozen=True)
class Prompt:
    """What is sent to a model: the user text and an optional system message."""

    text: str
    system: str | None = None


@dataclasses.dataclass(frozen=True)
class GenerationRequest:
    """Ask for the samples ``sample_indices`` of ``problem``.

    HTTP models only need ``prompt``, ``params`` and ``n``; models that look samples up
    (reference, replay) use ``problem`` and the indices.
    """

    problem: Problem
    prompt: Prompt
    sample_indices: tuple[int, ...]
    params: SamplingParams = SamplingParams()
    #: 0 for the first answer; r for the r-th error-debugging round (the prompt then holds
    #: the failed code and its test log).
    repair_round: int = 0

    @property
    def n(self) -> int:
        return len(self.sample_indices)


@dataclasses.dataclass(frozen=True)
class Completion:
    """One generated sample.

    ``text`` is the raw reply (code is extracted later). ``missing`` marks a sample the model
    does not have (a short replay file); ``error`` an API failure that survived retries.
    Neither is a failed sample: both are left out of pass@k and counted apart.
    """

    text: str = ""
    reasoning: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float | None = None
    finish_reason: str | None = None
    missing: bool = False
    error: str | None = None
    cached: bool = False

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items() if v not in (None, False)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Completion:
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in fields})


class ModelError(Exception):
    """A model spec that cannot be used (unknown name, missing key, unreadable file)."""


class Model:
    """Base class of every model. Subclasses implement :meth:`generate`."""

    #: The spec this model was built from; it names the model in results and caches.
    spec: str = "custom"
    #: Whether completions should go through the persistent generation cache. Models that
    #: only look samples up (reference, replay) gain nothing from it.
    cacheable: bool = False

    def generate(self, request: GenerationRequest) -> Sequence[Completion]:
        """Return exactly ``request.n`` completions, in the order of ``sample_indices``."""
        raise NotImplementedError

    def close(self) -> None:
        """Release connections; called once at the end of the session."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"


class ReferenceModel(Model):
    """Answers every sample with the problem's reference solution (validates a suite)."""

    spec = "reference"

    def generate(self, request: GenerationRequest) -> list[Completion]:
        ref = request.problem.reference
        if ref is None:
            return [Completion(missing=True)] * request.n
        return [Completion(text=ref)] * request.n


# What an empty answer looks like in each grading mode (see problems.MODE_*).
_EMPTY_JEST = ("import React from 'react';\n"
               "export default function App() { return null; }\n")


def empty_solution(problem: Problem) -> str:
    """A syntactically valid answer that does nothing: the tests must reject it."""
    if problem.mode == MODE_JEST:
        return _EMPTY_JEST
    if problem.mode == MODE_PYTHON_PROGRAM:
        name = str(problem.extra.get("func_name", "solution")).rsplit(".", 1)[-1]
        return f"def {name}(*args, **kwargs):\n    return None\n"
    return "    pass\n"  # a body after the prompt's signature


class ValidateModel(Model):
    """Validates a suite: each problem's reference where it has one (it must pass), else an
    empty solution (the tests must reject it; see :func:`outcomes.judge_empty_solution`)."""

    spec = "validate"

    def generate(self, request: GenerationRequest) -> list[Completion]:
        ref = request.problem.reference
        return [Completion(text=ref if ref is not None else empty_solution(request.problem))
                ] * request.n


class ReplayModel(Model):
    """Recorded completions in the human-eval sample format.

    One JSON object per line with ``task_id`` and ``completion``; an optional
    ``sample_index`` places a line, otherwise the i-th line of a task is its sample i.
    Lines with ``repair_round`` r (and a ``sample_index``) answer that sample's r-th
    error-debugging round.
    """

    def __init__(self, path: str | Path, spec: str | None = None) -> None:
        self.path = Path(path)
        self.spec = spec or f"replay:{path}"
        self.samples, self.repairs = load_replay(self.path)

    def generate(self, request: GenerationRequest) -> list[Completion]:
        task = request.problem.id
        if request.repair_round:
            recorded = {i: self.repairs[(task, i, request.repair_round)]
                        for i in request.sample_indices
                        if (task, i, request.repair_round) in self.repairs}
        else:
            recorded = self.samples.get(task, {})
        return [
            Completion(text=recorded[i]) if i in recorded else Completion(missing=True)
            for i in request.sample_indices
        ]


def load_replay(path: Path) -> tuple[dict[str, dict[int, str]],
                                     dict[tuple[str, int, int], str]]:
    """Read a samples file into ``{task_id: {sample_index: completion}}`` and the repair
    answers ``{(task_id, sample_index, round): completion}``."""
    opener = gzip.open if path.suffix == ".gz" else open
    samples: dict[str, dict[int, str]] = {}
    repairs: dict[tuple[str, int, int], str] = {}
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                where = f"{path}:{lineno}"
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    raise ModelError(f"{where}: not valid JSON ({e.msg})") from None
                if not isinstance(row, dict) or "task_id" not in row or "completion" not in row:
                    raise ModelError(f"{where}: a sample needs 'task_id' and 'completion'")
                if not isinstance(row["completion"], str):
                    raise ModelError(f"{where}: 'completion' must be a string")
                repair_round = row.get("repair_round", 0)
                if not isinstance(repair_round, int) or isinstance(repair_round, bool) \
                        or repair_round < 0:
                    raise ModelError(f"{where}: 'repair_round' must be a non-negative integer")
                if repair_round:
                    index = row.get("sample_index")
                    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
                        raise ModelError(f"{where}: a repair answer needs its 'sample_index'")
                    key = (str(row["task_id"]), index, repair_round)
                    if key in repairs:
                        raise ModelError(f"{where}: duplicate repair round {repair_round} of "
                                         f"sample {index} of {row['task_id']!r}")
                    repairs[key] = row["completion"]
                    continue
                task = samples.setdefault(str(row["task_id"]), {})
                index = row.get("sample_index", len(task))
                if not isinstance(index, int) or isinstance(index, bool) or index < 0:
                    raise ModelError(f"{where}: 'sample_index' must be a non-negative integer")
                if index in task:
                    raise ModelError(f"{where}: duplicate sample {index} of {row['task_id']!r}")
                task[index] = row["completion"]
    except OSError as e:
        raise ModelError(f"cannot read replay file {path}: {e.strerror}") from None
    return samples, repairs

