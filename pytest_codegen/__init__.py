"""pytest-codegen: a pytest plugin that grades LLM-generated code and reports pass@k.

The stable public API is what this module exports: the model interface a conftest.py
implements to grade any model (``Model``, ``GenerationRequest``, ``Completion``,
``SamplingParams``, ``Prompt``), the problem it is asked about (``Problem``), and the verdict
outcomes (``outcomes``). Internal module paths may move between releases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Completion", "GenerationRequest", "Model", "Problem", "Prompt", "SamplingParams"]

if TYPE_CHECKING:
    from .models.base import Completion, GenerationRequest, Model, Prompt, SamplingParams
    from .problems import Problem


def __getattr__(name: str) -> Any:
    # Loaded on first use: pytest imports this package in every run of a project that has
    # the plugin installed, and most of those runs grade nothing.
    if name in ("Completion", "GenerationRequest", "Model", "Prompt", "SamplingParams"):
        from .models import base

        return getattr(base, name)
    if name == "Problem":
        from .problems import Problem

        return Problem
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
