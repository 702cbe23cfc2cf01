"""Which suites and samples the command line names.

A suite file's node ids (``tiny.jsonl::tiny_add[s1]``) are pytest's own business: it resolves
them to the file's collector and its items like any test file's. A built-in suite has no file
in the project, so to pytest ``humaneval::HumanEval_0[s0]`` would be a missing path. At
configure time, after pytest's own argument parsing has told positional arguments from option
values (``--deselect ID``, ``--codegen-results humaneval::x`` keep theirs), the built-in ids
are taken out of ``config.args`` into one :class:`BuiltinSelection` per suite, merged with
``--codegen-suite``. :class:`~.items.BuiltinSuites` then adds one collector per suite to the
session's collection, which yields only the selected samples: each suite is collected once
however many times, and however, it was named. Everything after collection (``--deselect``,
``-k``, ``-m``, ``--lf``, ``--sw``, ``-x``, ``--co``) is pytest's, working on node ids as for
any file.

Every process (xdist's controller and each worker, which parse the same arguments) makes the
same selection, so an id that names nothing is the same one-line usage error with and without
xdist.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from pathlib import Path

import pytest

from ..keys import BUILTIN_KEY, NAMED_KEY, PROBLEM_FILES_KEY, settings_of
from ..kinds.protocol import Kind
from ..kinds.registry import kinds_of
from ..output_paths import shown_path
from ..problems import Problem, SuiteError, distinct_node_names
from ..settings import Settings
from ..user_hooks import call_hook
from .sample_counts import replayed_counts, samples_of


def builtin_files(config: pytest.Config) -> dict[Path, str]:
    return config.stash.setdefault(BUILTIN_KEY, {})


def in_builtin_suite(config: pytest.Config, path: Path) -> bool:
    """Whether ``path`` is a file of a built-in suite this run grades (its file, or one in
    its directory): collected under the suite's name, not again from a directory given
    (``--codegen-suite=everyday benchmarks/python``)."""
    here = path.resolve()
    return any(here.is_relative_to(suite.resolve()) for suite in builtin_files(config))


# One pasted id: (problem, sample) names, None for "all": (None, None) is the whole suite,
# ("HumanEval_0", None) all samples of a problem, ("HumanEval_0", "HumanEval_0[s0]") one.
Selector = tuple[str | None, str | None]


@dataclasses.dataclass
class BuiltinSelection:
    """What the command line asks of one built-in suite: the union of every id naming it."""

    name: str
    path: Path
    selectors: list[Selector] = dataclasses.field(default_factory=list)
    ids: list[str] = dataclasses.field(default_factory=list)  # as pasted, for errors

    def add(self, arg: str, parts: list[str], param: str | None) -> None:
        """Add one pasted id, split as pytest splits a file's: ``suite::part[param]``."""
        self.ids.append(arg)
        if not parts:
            self.selectors.append((None, None))
        else:
            self.selectors.append((parts[0], parts[0] + param if param else None))

    def rank(self, problem_name: str, item_name: str) -> int | None:
        """Where the sample ``item_name`` (``<problem>[s<i>]``) comes in the run, or None if
        no id selects it. As pytest does for a file's ids, an id without ``[...]`` takes
        every sample, an id inside another counts as that one, and the rest keep the order
        they were given in."""
        whole, problems, samples = self._ranks
        if whole is not None:
            return whole
        found = samples.get(item_name)
        return found if found is not None else problems.get(problem_name)

    @functools.cached_property
    def _ranks(self) -> tuple[int | None, dict[str, int], dict[str, int]]:
        """The rank of the whole suite (if named), of each problem, of each sample: each
        id's position, the first of equal ones, none for an id that another contains."""
        problems = {p for p, sample in self.selectors if p is not None and sample is None}
        whole: int | None = None
        by_problem: dict[str, int] = {}
        by_sample: dict[str, int] = {}
        for rank, (problem, sample) in enumerate(self.selectors):
            if problem is None:
                whole = rank if whole is None else whole
            elif sample is None:
                by_problem.setdefault(problem, rank)
            elif problem not in problems:
                by_sample.setdefault(sample, rank)
        return whole, by_problem, by_sample


def select_builtin_suites(config: pytest.Config, settings: Settings) -> dict[str, BuiltinSelection]:
    """Take the built-in suites' node ids out of ``config.args``, merge them with
    ``--codegen-suite``, read each named suite and check that every id names something.

    Raises ``UsageError`` (one line) on an unknown ``--codegen-suite`` or an id that names no
    problem or sample. An argument that exists as a path stays a path, as pytest has it.
    """
    from ..datasets import dataset_names, open_named
    from .builtin_suites import builtin_suites

    known: dict[str, Path | None] = {**dict.fromkeys(dataset_names()), **builtin_suites()}
    for name in settings.suite:
        if name not in known:
            raise pytest.UsageError(
                f"--codegen-suite: unknown suite {name!r} (built-in: {', '.join(sorted(known))};"
                " give other suites as paths)"
            )
    selections: dict[str, BuiltinSelection] = {}

    def selection(name: str) -> BuiltinSelection:
        if name not in selections:
            # A named dataset is found, or downloaded, only once a run asks for it.
            path = known[name] or open_named(config, name, settings.data_dir, settings.release)
            selections[name] = BuiltinSelection(name, path)
        return selections[name]

    rest: list[str] = []
    for arg in config.args:
        head, parts, param = _split(arg)
        if head not in known or (config.invocation_params.dir / head).exists():
            rest.append(arg)
            continue
        _no_bracketed_path(arg, parts, param)
        selection(head).add(arg, parts, param)
    for name in settings.suite:
        selection(name).selectors.append((None, None))
    # A built-in suite named here and also given by its path (everyday and
    # benchmarks/python/everyday.jsonl) is one suite, collected once under its name.
    by_path = {sel.path.resolve(): sel for sel in selections.values()}
    for arg in list(rest):
        head, parts, param = _split(arg)
        sel = by_path.get((config.invocation_params.dir / head).resolve()) if by_path else None
        if sel is not None:
            rest.remove(arg)
            sel.add(arg, parts, param)
    if settings.suite and config.args_source != pytest.Config.ArgsSource.ARGS:
        # Only named suites are graded when no path is given: not the project's tests.
        rest = []
    if selections:
        config.args = rest
    for sel in selections.values():
        builtin_files(config)[sel.path] = sel.name
        problems = read_at_start(config, sel.path) or []
        _check_ids(config, sel.ids, f"built-in suite {sel.name!r}", problems)
    return selections


def _split(arg: str) -> tuple[str, list[str], str | None]:
    """``suite::part[param]`` split as pytest's ``resolve_collection_argument`` splits a
    file's id: the head, the ``::`` parts, the ``[...]`` parametrization (or None)."""
    base, bracket, tail = arg.partition("[")
    head, *parts = base.split("::")
    return head, parts, bracket + tail if bracket else None


def _no_bracketed_path(arg: str, parts: list[str], param: str | None) -> None:
    """pytest's usage error for a ``[`` before any ``::``, which it reads as a
    parametrization of the path (``everyday[s0]``, ``runs[2]/a.jsonl``)."""
    if param is not None and not parts:
        raise pytest.UsageError(f"path cannot contain [] parametrization: {arg}")


def _check_ids(config: pytest.Config, ids: list[str], suite: str, problems: list[Problem]) -> None:
    """Fail on a pasted id of the suite that names none of its ``problems``' samples, as
    pytest fails on a file's ("not found"), but at start, so in every process alike."""
    samples = {p.node_name: samples_of(config, p) for p in problems}
    counts = replayed_counts(config)
    names = set(samples)
    items = {f"{name}[s{i}]" for name, n in samples.items() for i in range(n)}
    for arg in ids:
        _, parts, param = _split(arg)
        if not parts:
            continue
        if len(parts) > 1 or parts[0] not in names:
            what = f"no problem {parts[0]!r}" if len(parts) == 1 else "no nested names"
        elif param is not None and parts[0] + param not in items:
            n = samples[parts[0]]
            source = (
                f"{settings_of(config).model} holds {n}" if counts else f"--codegen-samples={n}"
            )
            what = f"no sample {param} ({source}: s0 to s{n - 1})"
        else:
            continue
        raise pytest.UsageError(f"not found: {arg} ({suite} has {what})")


def suite_kind(config: pytest.Config, path: Path, explicit: bool) -> Kind | None:
    """The kind that reads the suite file ``path`` in this run; None for a file that is no
    suite, or one found in a directory that holds none of the run's ``--codegen-release``
    (a later release's file: not read at all; named on the command line, it is)."""
    kind = kinds_of(config).claiming(path, explicit)
    release = settings_of(config).release
    if kind is None or (release and not explicit and not kind.holds_release(path, release)):
        return None
    return kind


def arg_path(config: pytest.Config, arg: str) -> Path:
    """The file or directory a command-line argument names (``path::node`` -> path)."""
    return config.invocation_params.dir / arg.split("::", 1)[0]


def check_paths_exist(config: pytest.Config) -> None:
    """A path on the command line that does not exist, a directory with ``::`` parts
    (``benchmarks/react::blogging_deleteComment``), or a ``[`` before any ``::`` (pytest
    takes it for a parametrization: ``runs[2]/a.jsonl``) is pytest's one line, exit 4, with
    xdist too: pytest says it while collecting, which xdist's controller never does (such a
    run said nothing and exited 5)."""
    if config.option.pyargs or config.args_source != pytest.Config.ArgsSource.ARGS:
        return
    for arg in config.args:
        _no_bracketed_path(arg, *_split(arg)[1:])
        path = arg_path(config, arg)
        if not path.exists():
            raise pytest.UsageError(f"file or directory not found: {arg}")
        if "::" in arg and path.is_dir():
            raise pytest.UsageError(f"directory argument cannot contain :: selection parts: {arg}")


def read_named_suites(config: pytest.Config) -> None:
    """Read the suite files named on the command line now, in every process alike: a file
    that cannot be read, or a pasted id that names none of its samples, is then one
    usage-error line with and without xdist (a collection error inside a worker would not
    be: such a run said nothing and exited 5). Collection takes the problems from here."""
    kinds = kinds_of(config)
    for arg in config.args:
        path = arg_path(config, arg)
        if path.is_file() and kinds.claiming(path, explicit=True) is not None:
            problems = read_at_start(config, path) or []
            _check_ids(config, [arg], f"suite file {arg.split('::', 1)[0]!r}", problems)
    if all(arg_path(config, arg).is_file() for arg in config.args):  # no directory to find more
        _check_release(config, read_at_start_only(config) or [])


def _check_release(config: pytest.Config, problems: list[Problem]) -> None:
    """``UsageError`` when ``--codegen-release`` names a release later than every release
    file of the run holds (``--codegen-release=v7`` of ``test.jsonl`` … ``test6.jsonl``):
    it would grade v1 to v6 as v7, as the named suite refuses to."""
    asked = settings_of(config).release
    kinds = kinds_of(config)
    held = {kinds.of(p).facets(p).get("release", "") for p in problems} if asked else set()
    releases = sorted(int(r) for r in held if r.isdigit())
    if releases and releases[-1] < asked:
        raise pytest.UsageError(
            f"--codegen-release: v{asked} is not a release of the suite files given "
            f"(the latest release they hold is v{releases[-1]})"
        )


def read_at_start(config: pytest.Config, path: Path) -> list[Problem] | None:
    """Read the suite at ``path`` now, for its collector to take (:func:`named_suite`): a
    suite that cannot be read is one usage-error line, the same in every process."""
    try:
        problems = call_hook("pytest_codegen_load_suite", path=path, config=config)
        if problems is not None:
            distinct_node_names(str(path), problems)
            claim_problems(config, path, problems)
    except SuiteError as e:
        raise pytest.UsageError(str(e)) from None
    if problems is not None:
        kinds = kinds_of(config)
        for problem in problems:
            try:
                kinds.of(problem)
            except ValueError as e:  # a loader's problem that no kind grades
                raise pytest.UsageError(f"{path}: {e}") from None
        config.stash.setdefault(NAMED_KEY, {})[path.resolve()] = problems
    return problems


def claim_problems(config: pytest.Config, path: Path, problems: list[Problem]) -> None:
    """``SuiteError`` if another file of this run already gave one of ``problems`` (the same
    task id in a suite of the same name): the summary, the scores and the results key samples
    by suite and task id, so the two would be scored as one problem (two ``tiny.jsonl``, or a
    built-in suite and a copy of it elsewhere). A suite of many files (WebApp1K's) claims each
    problem from its own file. A file is told by its path as pytest collects it, symbolic
    links kept: one file given by two paths (``a/x.jsonl`` and a link to ``a/``) would be
    collected, so graded, twice."""
    files = config.stash.setdefault(PROBLEM_FILES_KEY, {})
    here = Path(os.path.abspath(path))
    for problem in problems:
        first = files.setdefault((problem.suite, problem.id), here)
        if first != here:
            shown = [shown_path(p, config.invocation_params.dir) for p in (first, here)]
            advice = (
                "the same file by two paths: give it once"
                if first.resolve() == here.resolve()
                else "a suite is named after its file; grade the two in separate runs, or "
                "rename one"
            )
            raise SuiteError(
                f"{shown[1]}: problem {problem.id!r} of suite {problem.suite!r} is also in "
                f"{shown[0]} ({advice})"
            )


def read_at_start_only(config: pytest.Config) -> list[Problem] | None:
    """Every problem of the suites this run grades, when all of them were read at start (the
    built-in suites and the suite files named); None when collection may find others (a
    directory, a file no kind claims)."""
    named = config.stash.get(NAMED_KEY, {})
    if not named:  # (a build: its fragments are collected)
        return None
    for arg in config.args:
        if arg_path(config, arg).resolve() not in named:
            return None
    return [problem for problems in named.values() for problem in problems]


def named_suite(config: pytest.Config, path: Path) -> list[Problem] | None:
    """The problems of a suite read at start (once: collection takes them)."""
    return config.stash.get(NAMED_KEY, {}).pop(path.resolve(), None)
