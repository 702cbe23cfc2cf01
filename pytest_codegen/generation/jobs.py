"""What the generation stage is asked for: one sample of one problem for one prompt.

A :class:`Job` is what the plugin hands the engine and what a cache entry records; it has
its own module because both the disk cache and the engine use it.
"""

from __future__ import annotations

import dataclasses

from ..models.base import Prompt, SamplingParams
from ..problems import Problem


@dataclasses.dataclass(frozen=True)
class Job:
    """One sample to generate: sample ``sample_index`` of ``problem`` for ``prompt``."""

    problem: Problem
    prompt: Prompt
    sample_index: int
    params: SamplingParams = SamplingParams()
    stage: str = "solve"  # GenerationRequest.stage
    repair_round: int = 0  # GenerationRequest.repair_round
