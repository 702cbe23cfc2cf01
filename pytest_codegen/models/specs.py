"""From a ``--codegen-model`` spec to a model: the built-in models, ``PROVIDER:MODEL``, the
aliases of the ``codegen_models`` ini key (with their sampling presets) and the built-in model
names of :mod:`~pytest_codegen.models.names`, which an alias of the same name replaces.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..problems import Problem
from .base import Model, ModelError, SamplingParams, merge_params
from .builtin import EmptyModel, ReferenceModel, ReplayModel, ValidateModel
from .names import NAMED_MODELS
from .providers import PROVIDERS
from .rules import fit_preset

#: Sampling used by the WebApp1K leaderboard; use it with ``preset=webapp1k`` in an alias.
#: Used with a model that refuses part of it (``openai`` takes no ``top_k``, Claude 4.5 not
#: both temperature and top_p), that part is left out and the summary says so
#: (:func:`~pytest_codegen.models.rules.fit_preset`).
WEBAPP1K_PARAMS = SamplingParams(
    temperature=0.2, top_p=0.8, top_k=40, presence_penalty=0, frequency_penalty=0
)
PRESETS: dict[str, SamplingParams] = {"webapp1k": WEBAPP1K_PARAMS}

_PARAM_FIELDS = tuple(f.name for f in dataclasses.fields(SamplingParams))
_INT_PARAMS = frozenset({"top_k", "max_tokens", "seed"})
_ALIAS_KEYS = frozenset({"provider", "model", "base_url", "preset", *_PARAM_FIELDS})


def build_model(
    spec: str,
    *,
    base_url: str | None,
    params: SamplingParams,
    models_table: Sequence[str],
    base_dir: Path,
    request_timeout: float = 120.0,
    max_retry_wait: float = 300.0,
    empty_solution: Callable[[Problem], str] | None = None,
) -> Model | None:
    """The model ``spec`` names, or ``None`` when it names none known here.

    ``spec`` is ``reference``, ``validate``, ``empty``, ``replay:PATH`` (a relative ``PATH``
    is taken from ``base_dir``), ``PROVIDER:MODEL``, an alias defined by ``models_table``
    (the ``codegen_models`` ini lines) or a built-in name (:data:`NAMED_MODELS`).
    ``base_url`` and ``params`` (``--codegen-base-url`` and the sampling options) take
    precedence over an alias's or a name's own. A ``PROVIDER:MODEL`` with
    an unknown provider raises :class:`ModelError`. ``request_timeout`` and
    ``max_retry_wait`` (seconds) go to the HTTP transport. ``empty_solution`` gives the
    answers of ``empty`` and ``validate`` (the problem's kind's; see ``kinds``).
    """
    if spec == "reference":
        return ReferenceModel()
    if spec in ("validate", "empty"):
        if empty_solution is None:
            raise ModelError(f"{spec}: needs the problems' kinds for their empty solutions")
        return (ValidateModel if spec == "validate" else EmptyModel)(empty_solution)
    path = replay_path(spec, base_dir)
    if path is not None:
        return ReplayModel(path, spec=spec)
    # Imported only here: reference, validate and replay need neither requests nor HTTP.
    from .connect import make_provider_model

    transport = {"timeout_s": request_timeout, "max_retry_wait_s": max_retry_wait}
    provider = spec.split(":", 1)[0]
    # OpenAI:gpt-4o is openai:gpt-4o, as an alias's provider is (make_provider_model).
    if ":" in spec and provider.strip().lower() in PROVIDERS:
        return make_provider_model(spec, base_url=base_url, defaults=params, **transport)
    aliases = parse_models_table(list(models_table)) if models_table else {}
    if spec in aliases:
        target, alias_params, alias_url, notes = _resolve(spec, aliases)
        return make_provider_model(
            target,
            base_url=base_url or alias_url,
            defaults=merge_params(alias_params, params),
            notes=notes,
            **transport,
        )
    named = NAMED_MODELS.get(spec)
    if named is not None:  # after the aliases: a user's alias of the same name wins
        return make_provider_model(
            named.spec,
            base_url=base_url,
            defaults=merge_params(named.params, params),
            **transport,
        )
    if ":" in spec:
        raise ModelError(f"unknown provider {provider!r} (known: {', '.join(sorted(PROVIDERS))})")
    return None


def replay_path(spec: str, base_dir: Path) -> Path | None:
    """The samples file ``replay:PATH`` replays (``~`` expanded, a relative ``PATH`` taken from
    ``base_dir``); None for any other spec."""
    if not spec.startswith("replay:"):
        return None
    path = Path(spec.removeprefix("replay:")).expanduser()
    return path if path.is_absolute() else base_dir / path


def resolve_alias(
    name: str, table: Mapping[str, Mapping[str, Any]]
) -> tuple[str, SamplingParams, str | None]:
    """Resolve a bare model name through ``table``: ``(spec, sampling params, base URL)``.

    An entry is ``{provider, model, base_url?, preset?, temperature?, top_p?, ...}``; a
    ``preset`` (``webapp1k``) supplies parameters the entry's own ones then override,
    without those its model refuses.
    """
    return _resolve(name, table)[:3]


def _resolve(
    name: str, table: Mapping[str, Mapping[str, Any]]
) -> tuple[str, SamplingParams, str | None, list[str]]:
    """:func:`resolve_alias` and the notes on what a preset left out."""
    entry = table.get(name)
    if entry is None:
        known = ", ".join(sorted(table)) or "none are defined"
        raise ModelError(f"unknown model alias {name!r} (known aliases: {known})")
    unknown = sorted(set(entry) - _ALIAS_KEYS)
    if unknown:
        raise ModelError(
            f"model alias {name!r}: unknown setting {unknown[0]!r} "
            f"(allowed: {', '.join(sorted(_ALIAS_KEYS))})"
        )
    provider, model = entry.get("provider"), entry.get("model")
    if not provider and isinstance(model, str) and ":" in model:
        provider, model = model.split(":", 1)
    if not provider or not model:
        raise ModelError(f"model alias {name!r} needs a provider and a model")
    if str(provider).lower() not in PROVIDERS:
        raise ModelError(
            f"model alias {name!r}: unknown provider {provider!r} (known: {', '.join(PROVIDERS)})"
        )
    preset = entry.get("preset")
    if preset is not None and str(preset).lower() not in PRESETS:
        raise ModelError(
            f"model alias {name!r}: unknown preset {preset!r} (known: {', '.join(PRESETS)})"
        )
    provider = str(provider).lower()
    params, notes = SamplingParams(), []
    if preset is not None:
        params, notes = fit_preset(provider, str(model), str(preset), PRESETS[str(preset).lower()])
    overrides = {
        field: _coerce(name, field, entry[field])
        for field in _PARAM_FIELDS
        if entry.get(field) is not None
    }
    base_url = entry.get("base_url") or None
    return (
        f"{provider}:{model}",
        dataclasses.replace(params, **overrides),
        str(base_url) if base_url else None,
        notes,
    )


def parse_models_table(lines: Sequence[str] | str) -> dict[str, dict[str, Any]]:
    """Parse the ini form ``alias = provider:model key=value ...``, one alias a line.

    Blank lines and ``#`` comments are skipped; numbers are converted, so the result can go
    straight to :func:`resolve_alias`.
    """
    if isinstance(lines, str):
        lines = lines.splitlines()
    table: dict[str, dict[str, Any]] = {}
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        alias, eq, rest = line.partition("=")
        alias, words = alias.strip(), rest.split()
        where = f"model alias line {lineno} ({line!r})"
        if not eq or not alias or not words or ":" not in words[0] or "=" in words[0]:
            raise ModelError(f"{where}: expected 'alias = provider:model key=value ...'")
        if alias in table:
            raise ModelError(f"{where}: alias {alias!r} is defined twice")
        provider, model = words[0].split(":", 1)
        entry: dict[str, Any] = {"provider": provider.lower(), "model": model}
        for word in words[1:]:
            key, eq, value = word.partition("=")
            if not eq or key not in _ALIAS_KEYS - {"provider", "model"}:
                allowed = ", ".join(sorted(_ALIAS_KEYS - {"provider", "model"}))
                raise ModelError(f"{where}: unknown setting {word!r} (allowed: {allowed})")
            entry[key] = _coerce(alias, key, value) if key in _PARAM_FIELDS else value
        table[alias] = entry
    return table


def _coerce(alias: str, field: str, value: Any) -> int | float:
    kind = int if field in _INT_PARAMS else float
    if isinstance(value, bool):
        raise ModelError(f"model alias {alias!r}: {field} must be a number, not {value!r}")
    try:
        number = kind(value)
        if kind is int and isinstance(value, float) and value != number:
            raise ValueError
    except (TypeError, ValueError):
        what = "an integer" if kind is int else "a number"
        raise ModelError(f"model alias {alias!r}: {field} must be {what}, not {value!r}") from None
    return number
