"""``--codegen-list-models``: every model name and what it resolves to, as a table.

The listing is what :func:`~pytest_codegen.models.specs.build_model` would do with each
name: the user's ``codegen_models`` aliases first (they replace a built-in name of the same
spelling, and the listing says so), then the built-in names of
:mod:`~pytest_codegen.models.names`.
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import SamplingParams
from .names import NAMED_MODELS
from .providers import PROVIDERS
from .rules import PARAM_ORDER
from .specs import parse_models_table, resolve_alias

_HEADER = ("NAME", "PROVIDER:MODEL", "SAMPLING", "KEY", "FROM")


def describe_params(params: SamplingParams) -> str:
    """``temperature=0.2 top_p=0.8`` in the usual order, or ``provider defaults``."""
    values = params.as_dict()
    words = [f"{name}={values[name]:g}" for name in PARAM_ORDER if name in values]
    return " ".join(words) or "provider defaults"


def _key(provider: str) -> str:
    """The environment variable that holds ``provider``'s key, or ``-`` when none is needed."""
    entry = PROVIDERS[provider]
    return entry.key_env[0] if entry.key_required else "-"


def model_rows(models_table: Sequence[str]) -> list[tuple[str, str, str, str, str]]:
    """One row per name: name, spec (with its base URL if an alias sets one), sampling,
    key variable and where the name comes from. Raises ``ModelError`` on a bad alias line."""
    aliases = parse_models_table(list(models_table)) if models_table else {}
    rows = []
    for name in aliases:
        spec, params, url = resolve_alias(name, aliases)
        where = "codegen_models" + (" (replaces built-in)" if name in NAMED_MODELS else "")
        target = f"{spec} at {url}" if url else spec
        rows.append((name, target, describe_params(params), _key(spec.split(":")[0]), where))
    for name, entry in NAMED_MODELS.items():
        if name not in aliases:
            rows.append(
                (
                    name,
                    entry.spec,
                    describe_params(entry.params),
                    _key(entry.provider),
                    entry.source,
                )
            )
    return rows


def format_models(models_table: Sequence[str]) -> str:
    """The table :func:`model_rows` describes, in aligned columns, ending in a newline."""
    rows = [_HEADER, *model_rows(models_table)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADER) - 1)]
    lines = [
        "  ".join([*(cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=True)), row[-1]])
        for row in rows
    ]
    return "\n".join(lines) + "\n"
