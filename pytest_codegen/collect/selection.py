"""Node-id selection for built-in suites, which have no file in the project.

``humaneval::HumanEval_0[s0]`` on the command line would be rejected by pytest as a missing
path: :func:`rewrite_builtin_ids` turns it into options before pytest resolves its arguments,
and :func:`add_builtin_suites` collects the named suites and keeps the selected samples.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..problems import Problem, SuiteError
from ..settings import Settings

# Built-in suite files collected in this process -> the suite's name (for loading and hiding).
BUILTIN_KEY = pytest.StashKey[dict[Path, str]]()
# Suite files named on the command line, read at start -> their problems.
NAMED_KEY = pytest.StashKey[dict[Path, list[Problem]]]()


def builtin_files(config: pytest.Config) -> dict[Path, str]:
    return config.stash.setdefault(BUILTIN_KEY, {})


def rewrite_builtin_ids(args: list[str]) -> None:
    """Replace pasted built-in node ids in ``args`` by ``--codegen-suite``/``--codegen-select``."""
    from .suites import builtin_suites

    names = None
    for position, arg in reversed(list(enumerate(args))):
        if arg.startswith("-"):
            continue
        follows_option = (
            position > 0 and args[position - 1].startswith("-") and "=" not in args[position - 1]
        )
        if "::" not in arg and follows_option:
            continue  # most likely an option's value ("--codegen-suite humaneval")
        head = arg.split("::", 1)[0]
        if "/" in head or "\\" in head or Path(head).exists():
            continue
        names = names if names is not None else builtin_suites()
        if head in names:
            del args[position]
            args.extend([f"--codegen-suite={head}", f"--codegen-select={arg}"])


def add_builtin_suites(
    session: pytest.Session, settings: Settings, items: list[pytest.Item]
) -> None:
    """Collect the suites named by ``--codegen-suite`` into ``items``, then keep only the
    built-in samples that pasted node ids selected (when any were pasted)."""
    from .items import make_builtin_file
    from .suites import builtin_suites

    config = session.config
    known = builtin_suites()
    for name in settings.suite:
        path = known[name]  # checked by check_builtin_suites at configure time
        builtin_files(config)[path] = name
        items.extend(session.genitems(make_builtin_file(session, name, path)))
    selected = config.getoption("codegen_select")
    if selected:
        keep = [i for i in items if not _is_builtin(i, known) or _matches(i.nodeid, selected)]
        dropped = [i for i in items if i not in keep]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def check_builtin_suites(settings: Settings) -> None:
    """Fail at start, with one line, on an unknown ``--codegen-suite``: in every process
    alike, so the line is the same with and without xdist."""
    from .suites import builtin_suites

    known = builtin_suites()
    for name in settings.suite:
        if name not in known:
            raise pytest.UsageError(
                f"--codegen-suite: unknown suite {name!r} (built-in: {', '.join(sorted(known))};"
                " give other suites as paths)"
            )


def _is_builtin(item: pytest.Item, known: dict[str, Path]) -> bool:
    return item.nodeid.split("::", 1)[0] in known


def _matches(nodeid: str, selectors: list[str]) -> bool:
    return any(
        nodeid == s
        or nodeid.startswith(s + "[")
        or nodeid.startswith(s + "::")
        or nodeid.split("::", 1)[0] == s
        for s in selectors
    )


def read_named_suites(config: pytest.Config) -> None:
    """Read the suite files named on the command line now, in every process alike: a file
    that cannot be read is then one usage-error line with and without xdist (a collection
    error inside a worker would not be). Collection takes the problems from here."""
    from .suites import is_suite_file

    named = config.stash.setdefault(NAMED_KEY, {})
    for arg in config.args:
        path = config.invocation_params.dir / arg.split("::", 1)[0]
        if not path.is_file() or not (is_suite_file(path) or path.name.endswith(".test.js")):
            continue
        try:
            problems = config.hook.pytest_codegen_load_suite(path=path, config=config)
        except SuiteError as e:
            raise pytest.UsageError(str(e)) from None
        if problems is not None:
            named[path.resolve()] = problems


def named_suite(config: pytest.Config, path: Path) -> list[Problem] | None:
    """The problems of a suite file read at start (once: collection takes them)."""
    return config.stash.get(NAMED_KEY, {}).pop(path.resolve(), None)
