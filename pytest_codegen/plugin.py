"""pytest-codegen: grade generated code with pytest and report pass@k.

This module wires the stages into pytest: options (``settings``), collection (``collect/``),
and two role objects registered where they apply, as pytest-xdist separates its controller
from its workers: a :class:`~.runner.SampleRunner` where sample items run (generation,
execution, records) and a :class:`~.controller.RunReporter` where the run is reported
(results file, scores, gates, summary). It stays cheap to import: a project's ordinary test
run only pays for option registration, and benchmark items exist only with ``--codegen-model``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from . import settings
from .keys import (
    CONTROLLER_KEY,
    DATA_FILES_KEY,
    REPLAY_MODELS_KEY,
    RESUME_KEY,
    RUNNER_KEY,
    SETTINGS_KEY,
    SHARD_KEY,
    runner_of,
    settings_of,
)

if TYPE_CHECKING:
    from .models.base import Model
    from .problems import Problem


def pytest_addoption(parser: pytest.Parser) -> None:
    settings.add_options(parser)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """``--codegen-list-models``: print the model names and exit, before any session (and
    any xdist worker) starts, so the listing is the same with ``-n``."""
    if not (config.getoption("--codegen-list-models") or config.getini("codegen_list_models")):
        return None
    import sys

    from .models.base import ModelError
    from .models.listing import format_models

    try:
        table = format_models(config.getini("codegen_models"))
    except ModelError as e:
        raise pytest.UsageError(f"codegen_models: {e}") from None
    sys.stdout.write(table)
    return 0


def refuse_suites_without_model(config: pytest.Config, named: tuple[str, ...]) -> None:
    """Benchmark suites named (``named``: by ``--codegen-suite``) or given as files on the
    command line of a run with no model: one line saying what is missing, the same with
    xdist (pytest alone said "not found" of a file, xdist "no tests ran", exit 5). Of the
    files only those a kind recognises as a suite by their content count, not test modules."""
    given = []
    if not config.option.pyargs and config.args_source == pytest.Config.ArgsSource.ARGS:
        given = [arg.split("::", 1)[0] for arg in config.args]
    suites = [f"--codegen-suite={name}" for name in named]
    for arg in given:
        path = config.invocation_params.dir / arg
        if suites or path.suffix == ".py" or not path.is_file():
            continue
        from .kinds.registry import configure_kinds

        if configure_kinds(config).claiming(path, explicit=False) is not None:
            suites.append(arg)
    if suites:
        raise pytest.UsageError(
            f"{suites[0]}: a benchmark suite, and no --codegen-model to grade it with"
            " (reference, replay:FILE, a provider's model; with a codegen_model fixture of"
            " your own, any name for the run)"
        )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "codegen: a sample of a benchmark problem graded by pytest-codegen"
    )
    resolved = config.stash[SETTINGS_KEY] = settings.resolve(config)
    if not resolved.active:
        # Only suites named on the command line: an ini file's may wait for a model given
        # in CI, beside the project's own tests run without one.
        refuse_suites_without_model(config, config.getoption("--codegen-suite") or ())
        return
    from .kinds.registry import configure_kinds

    configure_kinds(config)
    if resolved.merge and resolved.compare:
        raise pytest.UsageError(
            "--codegen-merge and --codegen-compare do not go together: merge each run's shards"
            " first (--codegen-merge ... --codegen-results=RUN.jsonl), then compare the runs"
        )
    if not hasattr(config, "workerinput"):
        # Only the reporting process writes them (a remote worker has no such path), and
        # before any suite is downloaded or sample graded.
        from .output_paths import check_output_files

        check_output_files(config, resolved)
    if resolved.merge:  # earlier runs' results reported as one: nothing collected or graded
        from .reporting.merge import configure_merge

        configure_merge(config, resolved)
        return
    if resolved.compare:  # earlier runs compared: nothing collected or graded
        from .reporting.compare_run import configure_compare

        configure_compare(config, resolved)
        return
    from .collect.facets import FacetSelection
    from .collect.items import BuiltinSuites
    from .collect.selection import check_paths_exist, read_named_suites, select_builtin_suites
    from .controller import RunReporter, XdistControllerHooks
    from .generation.context import conftest_overrides_model, make_model
    from .runner import SampleRunner, runs_items

    # Usage errors are found here, in every process alike, so that xdist's controller says
    # the same line as a run without xdist (a worker's error would be lost in its crash).
    # Built-in suites' ids (`humaneval::HumanEval_0[s0]`) leave config.args for a collector
    # of their own. (xdist workers re-parse the original arguments: each process decides
    # the same.)
    builtin = select_builtin_suites(config, resolved)
    check_paths_exist(config)
    if builtin:
        from .pytest_internals import print_ids_as_they_are

        config.pluginmanager.register(BuiltinSuites(builtin), "codegen-builtin-suites")
        print_ids_as_they_are(config, set(builtin))
    if resolved.shard is not None:
        from .collect.shards import ShardSelection

        shard = config.stash[SHARD_KEY] = ShardSelection(resolved.shard)
        config.pluginmanager.register(shard, "codegen-shard")
    if FacetSelection.wanted(resolved):
        config.pluginmanager.register(FacetSelection(resolved), "codegen-facets")
    if resolved.build is not None:  # a benchmark build: the builder collects its input
        from .builder.fragment_items import configure_build

        configure_build(config, resolved)
    else:
        from .pytest_internals import last_failed_outside_rootdir

        read_named_suites(config)
        config.pluginmanager.register(SuiteFiles(), "codegen-suite-files")
        last_failed_outside_rootdir(config)
    runner = None
    if runs_items(config):
        runner = config.stash[RUNNER_KEY] = SampleRunner(config, resolved)
        config.pluginmanager.register(runner, "codegen-runner")
    checks_samples_file = resolved.build is None and not conftest_overrides_model(config)
    if runner is not None and checks_samples_file:
        from .collect.samples_file import SamplesFileCheck

        SamplesFileCheck.register(config, lambda: runner.generation.model)
    resume = None
    if resolved.resume:  # before the collector opens the results file to append to it
        from .collect.resume import Resume

        resume = config.stash[RESUME_KEY] = Resume.configure(config, resolved)
        config.pluginmanager.register(resume, "codegen-resume")
    from .collect.worker_deselected import ControllerDeselected, WorkerDeselected

    if hasattr(config, "workerinput"):
        config.pluginmanager.register(WorkerDeselected(config.workeroutput), "codegen-deselected")
        return
    if config.pluginmanager.hasplugin("xdist"):  # --tx to other hosts: what reaches them
        from .generation.remote_service import prepare_remote_arguments

        prepare_remote_arguments(config)
    collector = config.stash[CONTROLLER_KEY] = RunReporter(config, resolved)
    config.pluginmanager.register(collector, "codegen-controller")
    if resume is not None:
        resume.restore(collector)
    if config.pluginmanager.hasplugin("xdist"):
        from .collect.collection_errors import SuiteCollectionErrors

        config.pluginmanager.register(XdistControllerHooks(collector), "codegen-xdist")
        config.pluginmanager.register(ControllerDeselected(config), "codegen-deselected")
        config.pluginmanager.register(SuiteCollectionErrors(config), "codegen-collection-errors")
    model = None
    if not conftest_overrides_model(config):
        # Fail at start, with one line, on a model spec nothing can build.
        model = (
            runner.generation.model
            if runner is not None
            else make_model(config, resolved.model or "")
        )
        collector.model_id = getattr(model, "spec", None)
        if runner is None:
            model.close()
    if checks_samples_file:
        from .collect.samples_file import check_at_start

        check_at_start(config, model)
    collector.check_comparable(model, list(resume.done.values()) if resume is not None else [])


def pytest_unconfigure(config: pytest.Config) -> None:
    for key in (RUNNER_KEY, CONTROLLER_KEY):
        role = config.stash.get(key, None)
        if role is not None:
            role.close()


class SuiteFiles:
    """Suite files collected as benchmark items: the files a benchmark kind claims (see
    :mod:`.kinds`); registered in a run that grades suites (a build registers its own
    collector, of its input)."""

    @pytest.hookimpl(trylast=True)  # after a conftest.py's own collector of the same file
    def pytest_collect_file(
        self, file_path: Path, parent: pytest.Collector
    ) -> pytest.Collector | None:
        from .collect.items import SuiteFile
        from .collect.selection import in_builtin_suite, suite_kind

        explicit = parent.session.isinitpath(file_path)
        if suite_kind(parent.config, file_path, explicit) is None:
            return None
        if not explicit and in_builtin_suite(parent.config, file_path):
            return None
        return SuiteFile.from_parent(parent, path=file_path)


@pytest.fixture(scope="session")
def codegen_model(pytestconfig: pytest.Config) -> Model:
    """The model that writes the samples, built from ``--codegen-model``.

    Override it in a conftest.py to grade code from anything else, e.g. a local checkpoint::

        @pytest.fixture(scope="session")
        def codegen_model():
            return MyModel()  # a pytest_codegen.Model
    """
    return runner_of(pytestconfig).generation.model


@pytest.hookimpl(trylast=True)
def pytest_codegen_make_model(spec: str, config: pytest.Config) -> Model | None:
    from .kinds.registry import kinds_of
    from .models.specs import build_model, replay_path

    opts = settings_of(config)
    kinds = kinds_of(config)
    base_dir = opts.model_base or config.invocation_params.dir
    replays = replay_path(spec, base_dir) is not None
    built = config.stash.setdefault(REPLAY_MODELS_KEY, {})
    if replays and spec in built:
        return built[spec]  # read at start for the samples it holds (collect.sample_counts)
    model = build_model(
        spec,
        base_url=opts.base_url,
        params=opts.params,
        models_table=list(opts.models),
        base_dir=base_dir,
        request_timeout=opts.request_timeout,
        max_retry_wait=opts.max_retry_wait,
        empty_solution=lambda problem: kinds.of(problem).empty_solution(problem),
    )
    if replays:
        built[spec] = model
    return model


@pytest.hookimpl(trylast=True)
def pytest_codegen_grades_samples(config: pytest.Config) -> bool:
    return True


@pytest.hookimpl(trylast=True)
def pytest_codegen_load_suite(path: Path, config: pytest.Config) -> list[Problem]:
    from .collect.builtin_suites import suite_name_for
    from .collect.selection import builtin_files
    from .datasets import stamp
    from .kinds.registry import kinds_of

    kind = kinds_of(config).reading(path)
    root = kind.suite_root(path)  # a suite directory for a file in it (a React test)
    name = root.name if root != path else builtin_files(config).get(path) or suite_name_for(path)
    files = config.stash.get(DATA_FILES_KEY, {}).get(path)
    if files is not None:  # a named set of files: those the run needs (a release's), in order
        return stamp(config, root, [p for file in files for p in kind.load(path / file, name)])
    return stamp(config, root, kind.load(path, name))
