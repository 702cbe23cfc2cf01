"""What each model family accepts, beyond what its provider's API accepts in general.

:data:`FAMILIES` is a table, not code: a family is a provider, a pattern on the model name
(optionally with a minimum version) and what those models refuse. :func:`check_params` runs
before the first request, so a parameter such a model would reject (or, as DeepSeek's reasoner
does, accept and silently ignore) stops the run at start with one line naming the flag, the
model and what it accepts. Where a rule has a form that changes nothing about how samples are
drawn (one sample per request instead of ``candidateCount``), the model applies it and says so
(:func:`one_per_request_of`). :func:`fit_preset` makes a named preset fit the model it is used
with, so that a preset never produces a combination its model rejects.

Rules that the table does not know are learned at run time (see ``http.HTTPModel``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

from .base import ModelError, SamplingParams
from .providers import NEUTRAL, PROVIDERS
from .providers import check_params as check_provider_params

# The order parameters are listed in, in messages and in the docs.
PARAM_ORDER = (
    "temperature",
    "top_p",
    "top_k",
    "max_tokens",
    "presence_penalty",
    "frequency_penalty",
    "seed",
)


def flag(name: str) -> str:
    """The command-line flag of a sampling parameter."""
    return "--codegen-" + name.replace("_", "-")


@dataclasses.dataclass(frozen=True)
class Family:
    """Models of one provider whose name matches ``pattern`` (and, when the pattern has
    ``major``/``minor`` groups, whose version is at least ``min_version``)."""

    name: str  # as in messages: "OpenAI reasoning models (o1, o3, o4-mini, gpt-5)"
    provider: str
    pattern: str
    why: str  # what the API does, for messages and the docs
    min_version: tuple[int, int] | None = None
    #: Accepted only at this value (the API's default); anything else is rejected.
    defaults_only: Mapping[str, float] = dataclasses.field(default_factory=dict)
    #: Rejected (or silently ignored, which is as bad for a reported score).
    rejects: frozenset[str] = frozenset()
    #: At most one of these in one request.
    one_of: tuple[str, ...] = ()
    #: Several samples in one request are rejected: ask for one per request.
    one_per_request: bool = False
    examples: tuple[str, ...] = ()

    def matches(self, provider: str, model: str) -> bool:
        if provider != self.provider:
            return False
        found = re.match(self.pattern, model.lower().removeprefix("models/"))
        if found is None:
            return False
        if self.min_version is None:
            return True
        groups = found.groupdict()
        version = (int(groups.get("major") or 0), int(groups.get("minor") or 0))
        return version >= self.min_version


_SAMPLING = frozenset({"temperature", "top_p", "top_k"})

FAMILIES: tuple[Family, ...] = (
    Family(
        "OpenAI reasoning models (o1, o3, o4-mini, gpt-5, gpt-5-mini, gpt-5-nano)",
        "openai",
        # gpt-5.1 and later take temperature again at their default reasoning effort
        # ("none"), and gpt-5-chat is not a reasoning model: neither is matched.
        r"o[1-9](?![0-9])|gpt-5(?![.0-9])(?!-chat)",
        "accept temperature and top_p only at their default of 1, and no penalties",
        defaults_only={"temperature": 1, "top_p": 1},
        rejects=frozenset({"presence_penalty", "frequency_penalty"}),
        examples=("o1", "o3-mini", "o4-mini", "gpt-5", "gpt-5-mini", "gpt-5-nano"),
    ),
    Family(
        "DeepSeek's reasoner",
        "deepseek",
        r"deepseek-reasoner",
        "accepts temperature, top_p and the penalties but ignores them",
        rejects=frozenset({"temperature", "top_p", "presence_penalty", "frequency_penalty"}),
        examples=("deepseek-reasoner",),
    ),
    Family(
        "Claude 4.5 and newer",
        "anthropic",
        r"claude-(?:opus|sonnet|haiku)-(?P<major>\d+)(?:-(?P<minor>\d{1,2}))?(?![0-9])",
        "reject temperature and top_p in one request",
        min_version=(4, 5),
        one_of=("temperature", "top_p"),
        examples=("claude-sonnet-4-5", "claude-haiku-4-5-20251001", "claude-opus-4-5"),
    ),
    Family(
        "Claude Opus 4.7 and newer",
        "anthropic",
        r"claude-opus-(?P<major>\d+)(?:-(?P<minor>\d{1,2}))?(?![0-9])",
        "reject the sampling parameters temperature, top_p and top_k",
        min_version=(4, 7),
        rejects=_SAMPLING,
        examples=("claude-opus-4-7",),
    ),
    Family(
        "Gemini 3 models",
        "gemini",
        r"gemini-(?P<major>\d+)(?:\.(?P<minor>\d+))?(?![0-9.])",
        "reject candidateCount above 1",
        min_version=(3, 0),
        one_per_request=True,
        examples=("gemini-3-pro-preview", "gemini-3-flash-preview"),
    ),
)


def families_of(provider: str, model: str) -> list[Family]:
    """The families ``provider:model`` belongs to (several rules may apply)."""
    return [f for f in FAMILIES if f.matches(provider, model)]


def one_per_request_of(provider: str, model: str) -> Family | None:
    """The family that makes ``provider:model`` take one sample per request, if any."""
    return next((f for f in families_of(provider, model) if f.one_per_request), None)


def accepted(provider: str, model: str) -> str:
    """What ``provider:model`` accepts, as flags: ``--codegen-temperature or
    --codegen-top-p, --codegen-max-tokens, ...``."""
    families = families_of(provider, model)
    rejected = set().union(*(f.rejects for f in families))
    only: dict[str, float] = {}
    for family in families:
        only.update(family.defaults_only)
    pairs = [f.one_of for f in families if f.one_of]
    words: list[str] = []
    for name in PARAM_ORDER:
        if name not in PROVIDERS[provider].params or name in rejected:
            continue
        if any(name in pair and name != pair[0] for pair in pairs):
            continue  # listed with the first of its pair
        pair = next((p for p in pairs if p[0] == name), None)
        if pair is not None:
            words.append(" or ".join(flag(n) for n in pair if n not in rejected))
        elif name in only:
            words.append(f"{flag(name)} only as {only[name]:g}")
        else:
            words.append(flag(name))
    return ", ".join(words) or "no sampling parameters"


def problems(provider: str, model: str, params: SamplingParams) -> list[tuple[str, Family]]:
    """What ``params`` holds that ``provider:model`` rejects: ``(what, family)`` pairs, where
    ``what`` names the flags and values."""
    values = {k: v for k, v in params.as_dict().items() if NEUTRAL.get(k) != v}
    found: list[tuple[str, Family]] = []
    for family in families_of(provider, model):
        for name in PARAM_ORDER:
            if name not in values:
                continue
            if name in family.rejects or (
                name in family.defaults_only and values[name] != family.defaults_only[name]
            ):
                found.append((f"{flag(name)}={values[name]:g}", family))
        given = [n for n in family.one_of if n in values]
        if len(given) > 1:
            found.append((" with ".join(f"{flag(n)}={values[n]:g}" for n in given), family))
    return found


def check_params(provider: str, model: str, params: SamplingParams) -> None:
    """Raise :class:`ModelError` (one line) if ``provider:model`` would reject ``params``."""
    check_provider_params(provider, params, accepted(provider, model))
    found = problems(provider, model, params)
    if found:
        what, family = found[0]
        raise ModelError(
            f"{provider}:{model} does not take {what}: {family.name} {family.why}; "
            f"it accepts {accepted(provider, model)}"
        )


def fit_preset(
    provider: str, model: str, preset_name: str, preset: SamplingParams
) -> tuple[SamplingParams, list[str]]:
    """``preset`` without what ``provider:model`` rejects, and one note per parameter left
    out (a preset names a way of sampling; the parameters the user sets are never dropped)."""
    notes: list[str] = []
    kept = preset.as_dict()
    for name in list(kept):
        if name not in PROVIDERS[provider].params and NEUTRAL.get(name) != kept[name]:
            del kept[name]
            notes.append(f"preset {preset_name}: {name} left out ({provider} does not take it)")
    for family in families_of(provider, model):
        for name in list(kept):
            refused = name in family.rejects or (
                name in family.defaults_only and kept[name] != family.defaults_only[name]
            )
            if refused and NEUTRAL.get(name) != kept[name]:
                del kept[name]
                notes.append(f"preset {preset_name}: {name} left out ({family.name} {family.why})")
        given = [n for n in family.one_of if n in kept]
        for name in given[1:]:  # keep the first of the pair (temperature)
            del kept[name]
            notes.append(f"preset {preset_name}: {name} left out ({family.name} {family.why})")
    return SamplingParams(**kept), [f"{provider}:{model}: {n}" for n in notes]
