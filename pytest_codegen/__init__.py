"""pytest-codegen: a pytest plugin that grades LLM-generated code and reports pass@k.

The stable public API is what this module exports: the model interface a conftest.py
implements to grade any model (``Model``, ``GenerationRequest``, ``Completion``,
``SamplingParams``, ``Prompt``), the problem it is asked about (``Problem``), and the verdict
outcomes (``outcomes``). Internal module paths may move between releases.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Completion", "GenerationRequest", "Model", "Problem", "Prompt", "SamplingParams"]


def _load_without_assertion_rewriting() -> None:
    """pytest rewrites the asserts of every module of a plugin's distribution, so that a plugin's
    test helpers explain their failures. This plugin's asserts are internal invariants, and the
    rewriting parses and compiles each of its modules again in every pytest process (the
    controller and each xdist worker) wherever bytecode is not written
    (``PYTHONDONTWRITEBYTECODE``, read-only installs): ~0.7 s of CPU per process on 2 cores.
    So the package takes itself off the rewriting hook's list before its other modules load
    (this module alone is rewritten). pytest has no public call for this; if its hook changes,
    nothing happens and its modules are rewritten as before."""
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        if isinstance(marked, set) and __name__ in marked:
            marked.discard(__name__)
            remembered = getattr(finder, "_marked_for_rewrite_cache", None)
            if isinstance(remembered, dict):
                remembered.clear()


_load_without_assertion_rewriting()

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
