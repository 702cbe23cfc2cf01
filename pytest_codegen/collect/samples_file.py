"""A samples file (``--codegen-model=replay:PATH``) checked against the suites it grades.

A sample the file does not hold is ``missing``: skipped, left out of pass@k. So a samples file
of another benchmark (a replay of ``everyday`` graded as HumanEval) would leave every sample
missing in a run that exits 0, and a task id the suites do not have would be ignored. The
file's task ids are compared with the problems of the run's suites, whole: what ``-k``, node
ids, ``--codegen-shard`` or ``--codegen-resume`` select of them does not count. Not one id
naming a problem is a usage error; ids naming none are one line of the summary, and so are
samples past the ``--codegen-samples`` of their problem (the file's grader would count them).

Suites named on the command line (built-in names, suite files) are read at start, in every
process alike: the check is then a usage error at configure time, the same line with and
without xdist. Suites found by collecting a directory are known only where collection runs
(xdist's workers): there every sample is deselected, and the process that reports the run
says the same line and exits 4 when the session ends (:mod:`pytest_codegen.controller`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from ..keys import LOADED_SUITES_KEY, NAMED_KEY, SAMPLES_FILE_KEY, SAMPLES_FILE_OUT
from ..models.builtin import ReplayModel
from ..problems import Problem
from .sample_counts import samples_of
from .selection import arg_path

SHOWN = 3  # task ids quoted in the summary line


def judge(spec: str, file_ids: list[str], suites: dict[str, list[str]]) -> dict[str, str]:
    """``{"error": line}`` when not one of ``file_ids`` (the samples file's task ids, in file
    order) is a problem of ``suites`` (suite name -> problem ids), ``{"warning": line}`` when
    some are not, else ``{}``. No suite at all is for pytest to report (a path not found)."""
    if not any(suites.values()):
        return {}
    known = {task for ids in suites.values() for task in ids}
    unmatched = [task for task in file_ids if task not in known]
    names = ", ".join(suites)
    of = f"suite {names}" if len(suites) == 1 else f"suites {names}"
    if len(unmatched) == len(file_ids):
        first_suite, ids = next((suite, ids) for suite, ids in suites.items() if ids)
        if not file_ids:
            return {"error": f"--codegen-model {spec}: the file holds no samples to grade {of}"}
        return {
            "error": f"--codegen-model {spec}: not one task_id of the file names a problem of "
            f"{of} (the file has {file_ids[0]!r}, {first_suite} has {ids[0]!r})"
        }
    if not unmatched:
        return {}
    shown = ", ".join(repr(task) for task in unmatched[:SHOWN])
    if len(unmatched) > SHOWN:
        shown += f" and {len(unmatched) - SHOWN} more"
    return {
        "warning": f"{spec}: {len(unmatched)} of its {len(file_ids)} task_ids name no problem "
        f"of {of} and are not graded: {shown}"
    }


def past_samples(
    spec: str, answers: Iterable[tuple[str, int, int]], graded: dict[str, int]
) -> str | None:
    """The summary's line on the file's samples that no sample of the run takes: those of a
    problem graded (``graded``: problem id -> samples the run grades of it) whose index is
    past them. pass@k is then of fewer samples than the file's own grader counts: said, as
    the run alone would not show it."""
    firsts = [(task, index) for task, index, repair_round in answers if not repair_round]
    firsts = [(task, index) for task, index in firsts if task in graded]
    past = [(task, index) for task, index in firsts if index >= graded[task]]
    if not past:
        return None
    counts = {graded[task] for task, _ in past}
    per = f"the {counts.pop()}" if len(counts) == 1 else "those"
    return (
        f"{spec}: {len(past)} of its {len(firsts)} samples are not graded: their sample_index "
        f"is past {per} graded per problem (--codegen-samples; the file has up to "
        f"{max(index for _, index in past) + 1})"
    )


def by_suite(problems: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """``(suite, problem id)`` pairs grouped by suite, in order."""
    suites: dict[str, list[str]] = {}
    for suite, task in problems:
        suites.setdefault(suite, []).append(task)
    return suites


def suites_known_at_start(config: pytest.Config) -> bool:
    """Whether every suite of the run was read at start: the arguments left once built-in
    suites are taken out are files (suite files, read at start, or test files, which hold
    none); a directory may hold suites that only collection finds."""
    return all(arg_path(config, arg).is_file() for arg in config.args)


def check_at_start(config: pytest.Config, model: Any) -> None:
    """In the process that reports the run: raise ``UsageError`` if not one task id of the
    samples file names a problem of the suites read at start, keep the summary's lines if
    some do not or samples are past those graded (only when every suite of the run was read
    at start)."""
    if not isinstance(model, ReplayModel) or not suites_known_at_start(config):
        return
    read = [p for problems in config.stash.get(NAMED_KEY, {}).values() for p in problems]
    suites = by_suite((p.suite, p.id) for p in read)
    found = judge(model.spec, model.task_ids, suites)
    if "error" in found:
        raise pytest.UsageError(found["error"])
    graded = {p.id: samples_of(config, p) for p in read}
    past = past_samples(model.spec, model.answers, graded)
    if past is not None:
        found["past"] = past
    if found:
        config.stash[SAMPLES_FILE_KEY] = found


class SamplesFileCheck:
    """The check where collection finds the suites (a process that collects them: xdist's
    workers, or a run without xdist); ``model``: the model of this process, built on use."""

    def __init__(self, model: Callable[[], Any]) -> None:
        self.model = model

    @classmethod
    def register(cls, config: pytest.Config, model: Callable[[], Any]) -> None:
        if suites_known_at_start(config):
            return  # the process that reports the run checked them at start
        config.stash[LOADED_SUITES_KEY] = {}  # filled as suites are read (collect.items)
        config.pluginmanager.register(cls(model), "codegen-samples-file")

    @pytest.hookimpl(tryfirst=True)  # on what was collected, before -k or shards deselect
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[Any]) -> None:
        model = self.model()
        if not isinstance(model, ReplayModel):  # a remote host's worker: its model is elsewhere
            return
        loaded = config.stash.get(LOADED_SUITES_KEY, {})
        suites = by_suite(pair for pairs in loaded.values() for pair in pairs)
        found = judge(model.spec, model.task_ids, suites)
        graded: dict[str, int] = {}
        for item in items:
            if isinstance(getattr(item, "problem", None), Problem):
                task = item.problem.id
                graded[task] = max(graded.get(task, 0), item.sample_index + 1)
        past = past_samples(model.spec, model.answers, graded)
        if past is not None and "error" not in found:
            found["past"] = past
        if not found:
            return
        config.stash[SAMPLES_FILE_KEY] = found
        workeroutput = getattr(config, "workeroutput", None)
        if workeroutput is not None:  # for the controller, which collects nothing
            workeroutput[SAMPLES_FILE_OUT] = found
        if "error" in found:  # nothing to grade: the run ends with the error (exit 4)
            deselect_samples(config, items)


def refuse_before_grading(config: pytest.Config, items: list[Any], error: str) -> None:
    """Where collection runs: end the run with ``error``, one line told as a usage error
    (exit 4) by the process that reports the run, before any sample is graded."""
    found = config.stash.setdefault(SAMPLES_FILE_KEY, {})
    found["error"] = error
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:  # for the controller, which collects nothing
        workeroutput[SAMPLES_FILE_OUT] = found
    deselect_samples(config, items)


def deselect_samples(config: pytest.Config, items: list[Any]) -> None:
    keep, samples = [], []
    for item in items:
        is_sample = isinstance(getattr(item, "problem", None), Problem)
        (samples if is_sample else keep).append(item)
    if samples:
        config.hook.pytest_deselected(items=samples)
        items[:] = keep


def note_loaded(config: pytest.Config, path: Path, problems: list[Problem]) -> None:
    """Keep the ids of a suite read while collecting, when the samples file is checked."""
    loaded = config.stash.get(LOADED_SUITES_KEY, None)
    if loaded is not None:
        loaded[path] = [(p.suite, p.id) for p in problems]
