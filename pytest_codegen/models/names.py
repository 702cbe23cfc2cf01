"""The built-in model names: ``--codegen-model=llama-v3-70b`` without any alias to write.

:data:`NAMED_MODELS` is read from a table, ``names.json`` beside this module: each name is a
provider, the provider's model id, where the entry comes from (``from``) and the sampling
parameters sent with it. Two kinds of names are listed:

* the eleven models of the WebApp1K paper (Table 4), under the paper's own names, with the
  paper's parameters (temperature 0.2, top_p 0.8, top_k 40, penalties 0) as far as each API
  takes them: OpenAI's takes no ``top_k``, so ``gpt-4o`` is sent temperature and top_p only,
  as in the paper ("whenever applicable"). The open models are on Fireworks, as in the paper.
  Several of them have since been retired by their providers; the names stay so that the
  paper's runs can be repeated wherever they are still served (``--codegen-base-url``).
* today's popular hosted models of each provider, under their usual names, with no sampling
  parameters: the provider's defaults, which is what a bare model name means to its users
  (and the only sampling some of them accept, as OpenAI's reasoning models).

Parameters given on the command line replace an entry's own; a ``codegen_models`` alias of
the same name replaces the entry whole. No entry carries a parameter that
:mod:`~pytest_codegen.models.rules` says its model refuses (a test checks every one), so a
name never stops a run on its own.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from .base import SamplingParams

#: Where an entry comes from: the WebApp1K paper, or today's hosted models.
PAPER = "WebApp1K paper"
HOSTED = "hosted"
_SOURCES = {"paper": PAPER, "hosted": HOSTED}

TABLE = Path(__file__).with_name("names.json")


@dataclasses.dataclass(frozen=True)
class NamedModel:
    """One built-in name: ``provider:model`` sampled with ``params``."""

    name: str
    provider: str
    model: str
    params: SamplingParams
    source: str  # PAPER or HOSTED

    @property
    def spec(self) -> str:
        """The ``PROVIDER:MODEL`` spec this name stands for."""
        return f"{self.provider}:{self.model}"


def _entry(row: dict[str, Any]) -> NamedModel:
    fields = {f.name for f in dataclasses.fields(SamplingParams)}
    return NamedModel(
        name=row["name"],
        provider=row["provider"],
        model=row["model"],
        params=SamplingParams(**{k: v for k, v in row.items() if k in fields}),
        source=_SOURCES[row["from"]],
    )


def load_names(path: Path = TABLE) -> dict[str, NamedModel]:
    """The table at ``path``, by name, in its order (the paper's models first)."""
    return {entry.name: entry for entry in map(_entry, json.loads(path.read_text()))}


#: Every built-in name.
NAMED_MODELS: dict[str, NamedModel] = load_names()
