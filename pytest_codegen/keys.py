"""Where a run's roles and shared state are found.

Every ``config.stash`` key of the plugin, and the names of the values xdist carries between
the controller and its workers (``workerinput`` out, ``workeroutput`` back). A role finds
another through its key here, never by importing the module that defines it: the key names
the type for readers and type checkers only.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .controller import RunReporter
    from .problems import Problem
    from .runner import SampleRunner
    from .settings import Settings

# -- config.stash
SETTINGS_KEY = pytest.StashKey["Settings"]()  # every codegen option, resolved once
RUNNER_KEY = pytest.StashKey["SampleRunner"]()  # where sample items run
CONTROLLER_KEY = pytest.StashKey["RunReporter"]()  # where the run is reported
RESUME_KEY = pytest.StashKey["Resume"]()  # --codegen-resume
SHARD_KEY = pytest.StashKey["ShardSelection"]()  # --codegen-shard
KINDS_KEY = pytest.StashKey["KindRegistry"]()  # the benchmark kinds this run grades
BUILD_KEY = pytest.StashKey["BuildCollection"]()  # --codegen-build: the build's collection
# Built-in suite files collected in this process -> the suite's name (for loading and hiding).
BUILTIN_KEY = pytest.StashKey[dict[Path, str]]()
# Suite files named on the command line, read at start -> their problems.
NAMED_KEY = pytest.StashKey[dict[Path, "list[Problem]"]]()
# This run's problems, (suite, problem id) -> the file each was read from (see
# ``selection.claim_problems``: one problem of one suite in two files is refused).
PROBLEM_FILES_KEY = pytest.StashKey[dict[tuple[str, str], Path]]()
# Suites read while collecting -> their (suite, problem id) pairs, when a samples file is
# checked against them (collect.samples_file).
LOADED_SUITES_KEY = pytest.StashKey[dict[Path, list[tuple[str, str]]]]()
# What that check found: {"error": line} or {"warning": line}; also the error of a grading
# environment found unusable there (runner.SampleRunner.pytest_collection_modifyitems).
SAMPLES_FILE_KEY = pytest.StashKey[dict[str, str]]()
# Task id -> samples a problem gets from a replayed samples file (collect.sample_counts).
REPLAYED_COUNTS_KEY = pytest.StashKey["dict[str, int] | None"]()
# The replay models built in this process, by spec: a samples file is read once.
REPLAY_MODELS_KEY = pytest.StashKey["dict[str, Any]"]()
# Named suites' files or directories in this process -> their ``data`` identity.
DATA_KEY = pytest.StashKey[dict[Path, dict[str, Any]]]()
# Named suites that are a directory of files -> the files of it this run needs (a release's).
DATA_FILES_KEY = pytest.StashKey[dict[Path, list[str]]]()

# -- workerinput: controller to worker
STARTED_AT_KEY = "codegen_started_at"  # the controller's start ("regenerate" is judged by it)
DONE_KEY = "codegen_resume_done"  # the node ids graded before a resumed run
CHANNEL_KEY = "codegen_generation_channel"  # a remote worker's channel to the generation
MODEL_SPEC_KEY = "codegen_generation_model"  # ... and the model's own spec
MODEL_DEFAULTS_KEY = "codegen_generation_params"  # ... and its own sampling parameters
TRIPWIRE_STATE_KEY = "codegen_tripwire_state"  # the file a local worker's tripwire shares

# -- workeroutput: worker to controller
DESELECTED_KEY = "codegen_shard_deselected"  # samples this worker's shard left out
WORKER_DESELECTED_KEY = "codegen_deselected"  # items this worker deselected, for any reason
GENERATION_STATS_KEY = "codegen_generation"  # the worker's generation engine totals
SAMPLES_FILE_OUT = "codegen_samples_file"  # what the worker's samples file check found


def settings_of(config: pytest.Config) -> Settings:
    """This run's resolved options (resolved once, in ``pytest_configure``)."""
    return config.stash[SETTINGS_KEY]


def runner_of(config: pytest.Config) -> SampleRunner:
    return config.stash[RUNNER_KEY]


def controller_of(config: pytest.Config) -> RunReporter:
    return config.stash[CONTROLLER_KEY]
