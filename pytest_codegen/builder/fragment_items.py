"""The pytest side of a build: the input collected as items, one per fragment.

``--codegen-build=PATH[::GLOB]`` names the input; with no other path on the command line it
is what pytest collects. Each ``.py`` file (or the JSON/JSONL file) becomes a
:class:`BuildFile` whose items are its fragments: ``src/inventory.py::Inventory.restock``,
``fragments.json::17``. So a node id, ``-k`` and ``--lf`` (retry the rejected) work as for any
test. An item passes when its fragment is kept and fails with the stage and reason when it is
rejected; an API failure is an error, as for a sample. Each item's record (a
:class:`~pytest_codegen.reporting.records.SampleRecord` with a ``build`` field) travels on its
report, so the controller (:mod:`.collector`) sees the same results with and without xdist.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from .. import outcomes
from ..keys import BUILD_KEY, settings_of
from ..outcomes import SampleNotGenerated
from ..pytest_internals import ShortFailureRepr, fixture_closure
from ..sample_text import encodable_data, show_visibly
from ..settings import Settings
from .inputs import Fragment, fragments_in, input_files, is_json_input, is_test_file, split_spec


class BuildRejected(Exception):
    """A fragment the pipeline rejected; the message is ``stage: reason``."""


def configure_build(config: pytest.Config, settings: Settings) -> None:
    """Check ``--codegen-build``, make it what pytest collects when no path is given, and
    register the build's roles: collection in every process, the collector on the controller."""
    spec = str(settings.build)
    base = Path(config.invocation_params.dir)
    path_text, pattern = split_spec(spec)
    files = input_files(spec, base)
    if not files:
        raise pytest.UsageError(
            f"--codegen-build: {path_text!r} names no .py file, directory of them, or "
            ".json/.jsonl file of fragments"
        )
    given = Path(path_text)
    given = given if given.is_absolute() else base / given
    roots = [
        Path(os.path.abspath(r)) for r in (files if any(c in path_text for c in "*?[") else [given])
    ]
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        # Nothing named on the command line: build the input, not the project's tests (each
        # xdist worker decides the same from the same arguments). Given as the one directory
        # that holds it all (pytest_ignore_collect keeps the rest out): pytest names a file
        # it is given outside the rootdir by nothing (`::double`), two such files alike.
        config.args = [os.path.commonpath([r if r.is_dir() else r.parent for r in roots])]
    collection = config.stash[BUILD_KEY] = BuildCollection(config, settings, roots, pattern)
    config.pluginmanager.register(collection, "codegen-build")
    if not hasattr(config, "workerinput"):
        from .collector import BuildCollector

        config.pluginmanager.register(BuildCollector(config, settings), "codegen-build-collector")


class BuildFile(pytest.File):
    """One file of the build's input; its items are its fragments."""

    root: Path
    pattern: str | None = None

    def collect(self) -> Iterator[BuildItem]:
        pattern = None if is_json_input(self.path) else self.pattern
        fixtureinfo = None
        alone = self.config.stash[BUILD_KEY].roots == [self.path.resolve()]
        for fragment in fragments_in(self.path, self.root, pattern, alone):
            item = BuildItem.from_parent(
                self, name=fragment.name, fragment=fragment, fixtureinfo=fixtureinfo
            )
            fixtureinfo = fixture_closure(item)
            yield item


def _build(request: pytest.FixtureRequest, codegen_model: Any) -> None:
    """The test function of every build item (its fixtures resolve through the signature)."""
    request.node.check()


class BuildItem(ShortFailureRepr, pytest.Function):
    """One fragment: built in setup (or its result awaited), judged in call."""

    def __init__(self, *, fragment: Fragment, **kwargs: Any) -> None:
        super().__init__(callobj=_build, **kwargs)
        self.fragment = fragment
        self.result: dict[str, Any] | None = None
        self.record: dict[str, Any] | None = None
        self.record_sent = False
        self.extra_keyword_matches.update({"build", fragment.id})
        # pytest-timeout is the outer guard, as for graded samples; here over setup too,
        # where the fragment is built.
        budget = time_budget(settings_of(self.config))
        self.add_marker(pytest.mark.timeout(budget, func_only=False))

    def setup(self) -> None:
        super().setup()
        self.config.stash[BUILD_KEY].build(self)

    def check(self) -> None:
        result = self.result
        assert result is not None
        if result["log"]:
            self.add_report_section("call", "build log", "\n".join(result["log"]))
        if result["outcome"] != "kept":
            raise BuildRejected(f"{result['stage']}: {result['reason']}")
        self.add_report_section("call", "example", result["example"]["graded"])

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = self.fragment.line - 1 if self.fragment.line else None
        return self.path, line, f"build: {self.fragment.id}"

    def short_failure(self, excinfo: Any) -> str | None:
        if isinstance(excinfo.value, (BuildRejected, SampleNotGenerated)):
            return str(excinfo.value)
        return None


def time_budget(settings: Settings) -> float:
    """Seconds one fragment's item may take at most: every program run the pipeline can make
    at the sandbox's limit, and every model request with its retries."""
    from ..kinds.execcsn_rows import TIMEOUT_S
    from .pipeline import MAX_REQUESTS, MAX_RUNS

    run_limit = settings.timeout if "timeout" in settings.explicit else TIMEOUT_S
    request = settings.request_timeout + settings.max_retry_wait
    return MAX_RUNS * run_limit + MAX_REQUESTS * request + 60


class BuildCollection:
    """The build's hooks in every process that collects and runs build items."""

    def __init__(
        self, config: pytest.Config, settings: Settings, roots: list[Path], pattern: str | None
    ) -> None:
        self.config = config
        self.settings = settings
        self.roots = [r.resolve() for r in roots]
        self.named = roots  # as named: collection goes down to them, not through symlinks
        # What the module names of files named one by one (a glob) are relative to: their
        # common directory, so that src/a/util.py and src/b/util.py are a.util and b.util
        files = [r.parent for r in self.roots if not r.is_dir()]
        self.files_root = Path(os.path.commonpath(files)) if files else None
        self.pattern = pattern
        self.pool: Any = None

    def root_of(self, path: Path) -> Path | None:
        path = path.resolve()
        for root in self.roots:
            if path == root or root in path.parents:
                return root
        return None

    @functools.cached_property
    def sources_now(self) -> dict[str, str]:
        """The sha256 of the source of each function and method the input holds now, by id
        (by any rule: one an earlier build chose by another glob is still there)."""
        found: dict[str, str] = {}
        for file in input_files(str(self.settings.build), Path(self.config.invocation_params.dir)):
            root = self.root_of(file)
            if root is None:
                continue
            node_root = root if root.is_dir() else self.files_root or root.parent
            for fragment in fragments_in(file, node_root, "*"):
                if not fragment.error:
                    found.setdefault(fragment.id, fragment.sha256)
        return found

    def is_stale(self, row: dict[str, Any]) -> bool:
        """Whether an earlier build's row is of this input (its source's path is in it) but
        shows none of its fragments as they are now: the target is gone, or its source
        changed since it was built."""
        source = row["source"]
        path = Path(self.config.invocation_params.dir) / str(source.get("path") or "")
        if not source.get("path") or self.root_of(path) is None:
            return False  # another input's
        return self.sources_now.get(str(row.get("idx"))) != source.get("sha256")

    def pytest_collect_file(
        self, file_path: Path, parent: pytest.Collector
    ) -> pytest.Collector | None:
        """A :class:`BuildFile` for a file of the build's input, None for any other file."""
        root = self.root_of(file_path)
        if root is None:
            return None
        if root.is_dir():
            if file_path.suffix != ".py" or is_test_file(file_path.resolve().relative_to(root)):
                return None
        elif file_path.resolve() != root:
            return None
        node = BuildFile.from_parent(parent, path=file_path)
        node.root = root if root.is_dir() else self.files_root or root.parent
        node.pattern = self.pattern
        return node

    def pytest_codegen_grades_samples(self, config: pytest.Config) -> bool:
        """Fragments are not samples: the collector (:mod:`.collector`) reports them."""
        return False

    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config) -> bool | None:
        path = collection_path.resolve()
        root = self.root_of(path)
        if root is None:  # outside the input: only the way down to it is collected (even
            # where pytest's norecursedirs would not go: the input named it)
            return not any(collection_path in r.parents for r in self.named)
        if collection_path.is_symlink() and any(r in collection_path.parents for r in self.named):
            # A link inside the input is not followed: what it names in the input is built
            # through its own path (a link to a parent directory would be a loop), the rest
            # is not part of the input.
            return True
        if root.is_dir() and path != root and path.suffix == ".py":
            return True if is_test_file(path.relative_to(root)) else None
        return None

    @pytest.hookimpl(tryfirst=True)  # before -k and the like deselect: ids stay the same
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """An id is the suite's, so one fragment's: one that two files give (rows of two
        JSON files with one idx) is the first's, and the later fragment fails naming it."""
        first: dict[str, str] = {}
        for item in items:
            if not isinstance(item, BuildItem) or item.fragment.error:
                continue
            fragment = item.fragment
            owner = first.setdefault(fragment.id, item.nodeid)
            if owner != item.nodeid:
                error = f"id {fragment.id!r} is also the id of {owner}"
                item.fragment = dataclasses.replace(fragment, error=error)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Start building every collected fragment, many at a time (see :mod:`.pool`)."""
        from ..generation.context import conftest_overrides_model
        from ..keys import runner_of

        items = [i for i in session.items if isinstance(i, BuildItem)]
        if not items or session.config.option.collectonly:
            return
        runner = runner_of(self.config)
        if (
            conftest_overrides_model(self.config)
            or runner.generation.engine_for(runner.generation.model) is None
        ):
            return  # built item by item, with the model the fixture gives
        from .pool import BuildPool

        self.pool = BuildPool(
            lambda fragment: self.pipeline(fragment, runner.generation.model),
            self.claims_dir(runner),
            self.settings.concurrency,
        )
        self.pool.start([(i.nodeid, i.fragment) for i in items])

    def claims_dir(self, runner: Any) -> Path | None:
        """Where xdist workers share claims and results (None without xdist)."""
        if not hasattr(self.config, "workerinput"):
            return None
        return run_dir(runner.generation.started_at)

    def pipeline(self, fragment: Fragment, model: Any) -> dict[str, Any]:
        from ..keys import runner_of
        from .pipeline import Pipeline
        from .pool import RuntimeServices

        runner = runner_of(self.config)
        services = RuntimeServices(runner, model, fragment, self.hidden(runner))
        return Pipeline(fragment, services, self.settings.prompt_template).build()

    def hidden(self, runner: Any) -> tuple[str, ...]:
        """What the build's programs must not see, as graded samples must not (see
        :mod:`~pytest_codegen.execution.hidden`): the build's input, its suite file and
        report (and the directory holding them), the generation cache, pytest's cache, the
        run's shared claims and results (other fragments' work) and the plugin."""
        from ..execution.hidden import pytest_cache_dir
        from .collector import suite_path
        from .output import report_path

        out = suite_path(self.config, self.settings)
        also = (report_path(out), pytest_cache_dir(self.config), self.claims_dir(runner))
        return runner.executor.hidden(out, [*self.roots, out], also)

    def build(self, item: BuildItem) -> None:
        """Item setup: the fragment's result and record; an API failure raises here."""
        import time

        from ..keys import runner_of
        from ..reporting.records import make_record
        from .pool import fragment_problem

        started = time.monotonic()
        model = item.funcargs["codegen_model"]
        runner = runner_of(self.config)
        if self.pool is not None and model is runner.generation.model:
            result = self.pool.result(item.nodeid, item.fragment)
        else:
            result = self.pipeline(item.fragment, model)
        item.result = result
        outcome = {"kept": outcomes.PASSED, "api_error": outcomes.API_ERROR}.get(
            result["outcome"], outcomes.FAILED
        )
        example = result["example"] or {}
        record = make_record(
            nodeid=item.nodeid,
            problem=fragment_problem(item.fragment),
            sample_index=0,
            outcome=outcome,
            model=runner.model_spec,
            duration_s=time.monotonic() - started,
            code=example.get("graded", ""),
            error="" if outcome == outcomes.PASSED else f"{result['stage']}: {result['reason']}",
        )
        record["build"] = result  # type: ignore[typeddict-unknown-key]
        item.record = dict(record)
        if outcome == outcomes.API_ERROR:
            raise SampleNotGenerated(f"model API error: {result['stage']}: {result['reason']}")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if not isinstance(item, BuildItem) or item.record_sent:
            return report
        show_visibly(report)  # the model's tests and code reach the terminal as text
        if item.record is not None and (report.when == "call" or report.failed):
            # JSON-safe and encodable: it crosses xdist's wire and is written.
            report.codegen = item.record = encodable_data(item.record)  # type: ignore[attr-defined]
            item.record_sent = True
        return report

    def pytest_sessionfinish(self, exitstatus: int) -> None:
        if self.pool is not None:
            self.pool.close(interrupted=exitstatus == pytest.ExitCode.INTERRUPTED)


def run_dir(started_at: float) -> Path:
    """This run's directory of build claims and results, shared by its processes: part of
    what the run's processes share, which the controller removes when the run ends."""
    from ..cachedir import run_scratch

    return run_scratch(started_at) / "build"
