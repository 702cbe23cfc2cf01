"""``--codegen-resume``: finish the run a results file records, grading no sample twice.

The results file is written a record at a time as samples are graded, so after a worker,
a host or the whole run died it holds every sample graded until then. A resumed run reads
it at start (in the process that reports the run); the samples it graded are deselected in
every process (xdist workers get their node ids in ``workerinput``, as a remote host has no
copy of the file), their records are the summary's as if graded now, and the file is
appended to. A sample counts as graded unless its latest record says it was not: its
process died under it, the run ended first, the model had no answer (missing, API error).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .. import outcomes
from ..generation.context import conftest_overrides_model
from ..keys import DONE_KEY, settings_of
from ..kinds.registry import kinds_of
from ..models.base import SamplingDefaults
from ..settings import Settings
from .sample_counts import replayed_counts
from .selection import arg_path, builtin_files


def graded_before(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Node id -> the latest record of each sample a results file holds a verdict for."""
    latest: dict[str, dict[str, Any]] = {}
    for record in records:
        if isinstance(record.get("nodeid"), str) and "outcome" in record:
            latest[record["nodeid"]] = record
    return {
        nodeid: record
        for nodeid, record in latest.items()
        if record["outcome"] not in (outcomes.MISSING, outcomes.API_ERROR)
        and record.get("error") != outcomes.PROCESS_DIED
    }


def past_samples(done: dict[str, dict[str, Any]], config: pytest.Config) -> str | None:
    """The first of the samples graded before whose index is past the samples its problem
    gets in this run (a file of another run, or one written before records stated their
    settings), as ``"sample NODEID, past ..."``: never a sample of this run, it would count
    in its pass@k."""
    settings = settings_of(config)
    counts = replayed_counts(config) or {}
    kinds = kinds_of(config)
    for nodeid, record in done.items():
        index = record.get("sample_index")
        # As collect.sample_counts counts them: the replayed file's, else the kind's default.
        count = counts.get(str(record.get("task_id")))
        source = f"{settings.model} holds {count}"
        if not count:
            kind = kinds.named(str(record.get("mode") or ""))
            defaults = kind.sampling_defaults if kind else SamplingDefaults()
            count = settings.samples_for(defaults)
            defaulted = "samples" not in settings.explicit and defaults.samples is not None
            source = f"{defaults.source} default" if defaulted else f"--codegen-samples={count}"
        if isinstance(index, int) and index >= count:
            return f"sample {nodeid}, past the {count} samples a problem this run grades ({source})"
    return None


NEWLINE = b"\n"


def read_for_resume(path: Path) -> list[dict[str, Any]]:
    """The records of ``path`` (none if it does not exist yet), checked to be a run's
    results: ``ValueError`` naming the line of one that is not (a samples file given for the
    results, which would be appended to). A last line cut short (the process writing it was
    killed mid-write) is dropped from the file, so that appending starts on a line of its
    own; one that is whole but unended (another tool's) is ended. The file is changed only
    once every line before is known to be a record."""
    from ..reporting.results import SCORED_FIELDS, load_sample_records

    required = ("nodeid", *SCORED_FIELDS)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    if data and not data.endswith(NEWLINE):
        last = f"{path}:{data.count(NEWLINE) + 1}:"
        try:
            records = load_sample_records(path, required)  # checked before it is changed
        except ValueError as e:
            # Read in order: an error on the last line says every line before is a record.
            if not str(e).startswith(last):
                raise
            with path.open("r+b") as fh:
                fh.truncate(data.rfind(NEWLINE) + 1)
        else:
            with path.open("ab") as fh:
                fh.write(NEWLINE)
            return records
    return load_sample_records(path, required)


def named_on_command_line(config: pytest.Config) -> list[str]:
    """The node ids of samples or problems pasted on the command line (``tiny.jsonl::tiny_add``,
    ``humaneval::HumanEval_0[s1]``), as node ids are written: relative to the rootdir, or
    under its name for a built-in suite of this run given by its path."""
    builtin = {path.resolve(): name for path, name in builtin_files(config).items()}
    named = []
    for arg in config.option.file_or_dir or ():
        head, sep, rest = arg.partition("::")
        if not sep:
            continue
        path = arg_path(config, arg)
        if path.exists():  # else a built-in suite's name
            head = (
                builtin.get(path.resolve())
                or Path(os.path.relpath(path, config.rootpath)).as_posix()
            )
        named.append(f"{head}::{rest}")
    return named


def names(nodeid: str, named: list[str]) -> bool:
    """Whether ``nodeid`` is one of ``named`` or a sample of a problem in it."""
    return any(nodeid == n or nodeid.startswith((f"{n}[", f"{n}::")) for n in named)


class Resume:
    """Deselects the samples graded before; on the reporting side, hands their records over."""

    def __init__(
        self, done: dict[str, dict[str, Any]] | set[str], source: Path | None, again: int = 0
    ) -> None:
        self.done = done
        self.source = source
        self.deselected = 0
        self.again = again  # samples graded before and named on the command line: graded again

    @classmethod
    def configure(cls, config: pytest.Config, settings: Settings) -> Resume:
        workerinput = getattr(config, "workerinput", None)
        if workerinput is not None:
            return cls(set(workerinput.get(DONE_KEY, ())), None)
        if settings.results is None:
            raise pytest.UsageError("--codegen-resume: needs --codegen-results PATH to resume")
        path = Path(config.invocation_params.dir) / settings.results
        try:
            done = graded_before(read_for_resume(path))
        except (OSError, ValueError) as e:
            raise pytest.UsageError(f"--codegen-resume: {e}") from None
        past = past_samples(done, config)
        if past:
            raise pytest.UsageError(
                f"--codegen-resume: {settings.results} holds {past}: resume with the "
                "--codegen-samples it was graded with, or give a new --codegen-results file"
            )
        others = sorted({str(r.get("model")) for r in done.values()} - {settings.model or ""})
        if others and not conftest_overrides_model(config):  # (its model names its records)
            raise pytest.UsageError(
                f"--codegen-resume: {settings.results} holds samples of model "
                f"{', '.join(others)}, not {settings.model}"
            )
        # A sample pasted back by its node id is graded again, its record appended (the last
        # record of a sample counts): how one sample is regraded into a results file.
        named = named_on_command_line(config)
        again = [nodeid for nodeid in done if names(nodeid, named)]
        for nodeid in again:
            del done[nodeid]
        return cls(done, settings.results, again=len(again))

    def restore(self, collector: Any) -> None:
        """Give the reporting side the records graded before (already in the file)."""
        assert isinstance(self.done, dict)
        collector.records.update(self.done)

    @pytest.hookimpl(trylast=True)  # after -k, --lf, shards: what is left to run
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[Any]) -> None:
        if not self.done:
            return
        keep, drop = [], []
        for item in items:
            (drop if item.nodeid in self.done else keep).append(item)
        if drop:
            self.deselected = len(drop)
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Any:
        result = yield
        if isinstance(self.done, dict):  # the exit status counts them, as in one whole run
            session.testscollected += len(self.done)
            session.testsfailed += sum(r["outcome"] in outcomes.FAILING for r in self.done.values())
        return result

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.source is not None and self.done:
            again = f"; {self.again} named on the command line were" if self.again else ""
            terminalreporter.write_line(
                f"resumed {self.source}: {len(self.done)} samples graded before "
                f"were not graded again{again}"
            )
