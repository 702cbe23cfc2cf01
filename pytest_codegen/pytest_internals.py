"""The private pytest APIs pytest-codegen relies on, in one place, each with why.

pytest does not promise these across releases; when one changes, this is the module to adapt.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest


def fixture_closure(item: pytest.Function) -> Any:
    """An item's resolved fixture closure, to hand to its siblings: every sample item of a
    suite has the same test function and parent, so the same closure (as parametrized tests
    share one); resolving it once per suite instead of once per item saves collection time."""
    return getattr(item, "_fixtureinfo", None)


def give_param_id(item: pytest.Function, name: str, param: str) -> None:
    """pytest >= 9.2 keeps a structured node id; give an item's ``[param]`` suffix as params,
    like a parametrized test's, so that ids read back from the ``--lf`` cache compare equal
    (pytest#15045). Older pytest has plain string ids: nothing to do."""
    parent_id = getattr(item.parent, "id", None)
    if parent_id is not None and hasattr(parent_id, "with_params"):
        item._id = parent_id.child(name).with_params(param)  # type: ignore[attr-defined]


class ShortFailureRepr:
    """Item mixin: a failure for which :meth:`short_failure` returns a message is shown as
    that message alone. pytest renders call-phase failures through ``repr_failure`` but
    setup-phase ones through the private ``_repr_failure_py``, so both are overridden."""

    def short_failure(self, excinfo: Any) -> str | None:
        return None

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        # Function.repr_failure takes no style (pytest >= 9.2 refuses one).
        return self.short_failure(excinfo) or super().repr_failure(excinfo)  # type: ignore[misc]

    def _repr_failure_py(self, excinfo: Any, style: Any = None) -> Any:
        return self.short_failure(excinfo) or super()._repr_failure_py(excinfo, style=style)  # type: ignore[misc]


class CollectErrorLine:
    """A collector's failure shown as its message alone, in the errors section and in the
    short summary (``ERROR suite.jsonl - suite.jsonl:2: not valid JSON ...``). pytest wraps a
    plain string from ``repr_failure`` in a repr without a crash message, so its summary named
    the file alone, while xdist sends the report on as a string, which the summary quotes:
    given a ``reprcrash`` message, both say the same line."""

    def __init__(self, message: str) -> None:
        self.message = message
        self.reprcrash = self  # what the short summary reads: ``reprcrash.message``

    def toterminal(self, tw: Any) -> None:
        tw.line(self.message, red=True)

    def __str__(self) -> str:  # what xdist sends of it
        return self.message


def junitxml_of(config: pytest.Config) -> Any:
    """The run's junitxml writer, if ``--junitxml`` is on, to add suite-level properties (the
    public ``record_testsuite_property`` fixture is per test, not per session)."""
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pragma: no cover
        return None
    return config.stash.get(xml_key, None)


def rewrite_asserts(tree: Any, source: bytes, filename: str) -> None:
    """Rewrite a benchmark's test asserts in ``tree`` as pytest rewrites its own, so a failed
    one says "expected vs got" (pytest exposes the rewriter only to its import hook)."""
    from _pytest.assertion.rewrite import rewrite_asserts as rewrite

    rewrite(tree, source, filename)


def xdist_replace_no_more(config: pytest.Config) -> bool:
    """Make pytest-xdist treat the worker that just went down as one crash too many, as
    ``--max-worker-restart`` does: it ends the run in order (the other workers finish what
    they hold, every report is read) instead of starting a replacement. xdist has no public
    way to say that one worker is not to be replaced, and replacing a worker whose host is
    gone fails with an internal error that drops the reports not yet read. False where this
    xdist keeps its count otherwise."""
    dsession = config.pluginmanager.getplugin("dsession")
    failed = getattr(dsession, "_failed_nodes_count", None)
    if (
        dsession is None
        or not isinstance(failed, int)
        or not hasattr(dsession, "_max_worker_restart")
    ):
        return False
    dsession._max_worker_restart = failed  # xdist adds this crash next, then compares
    return True


def replace_invocation_args(config: pytest.Config, args: list[str]) -> None:
    """Have xdist send ``args`` to its workers instead of the command line as given: it reads
    ``config.invocation_params.args`` when it sets up each worker (after
    ``pytest_configure``). The object is documented read-only; it is replaced, not changed,
    and only by arguments that parse the same."""
    params = config.invocation_params
    config.invocation_params = pytest.Config.InvocationParams(
        args=args, plugins=params.plugins, dir=params.dir
    )


def print_ids_as_they_are(config: pytest.Config, suites: set[str]) -> None:
    """pytest prints a node id with its path made relative to the current directory
    (``Config.cwd_relative_nodeid``, for the ``-v`` lines and the short summary). A built-in
    suite's id names no path: run from a subdirectory of the rootdir, ``humaneval::...`` was
    printed ``../humaneval::...``, which pasted back names nothing. The ids of ``suites``
    (their names) are printed as they are. pytest >= 9.2 passes a structured id, older a
    string."""
    relative = config.cwd_relative_nodeid

    def cwd_relative_nodeid(nodeid: Any) -> Any:
        path = getattr(nodeid, "path", None)
        if path is None:
            path = str(nodeid).split("::", 1)[0]
        return nodeid if path in suites else relative(nodeid)

    config.cwd_relative_nodeid = cwd_relative_nodeid  # type: ignore[method-assign]


def xdist_maxfail_as_failure(session: pytest.Session) -> Generator[None, Any, Any]:
    """The controller's ``pytest_runtestloop`` wrapper: pytest-xdist ends its loop for
    ``-x``/``--maxfail`` by raising its ``Interrupted`` (a ``KeyboardInterrupt``) once every
    worker has stopped, so the run exited 2 ("interrupted", with an "Interrupted" line) where
    pytest alone exits 1 ("tests failed", "stopping after N failures") for the same stop.
    That stop is told from a real interrupt (Ctrl-C, a plugin's ``shouldstop``) by the
    controller's own record of it: pytest sets ``session.shouldfail`` when the failures it was
    told of reach ``--maxfail``, and nothing else does."""
    try:
        return (yield)
    except KeyboardInterrupt as error:
        error_type = type(error)
        if not (
            error_type.__module__ == "xdist.dsession"
            and error_type.__name__ == "Interrupted"
            and session.shouldfail
            and not session.shouldstop
            and str(error).startswith("stopping after ")
        ):
            raise
        return True


def last_failed_outside_rootdir(config: pytest.Config) -> None:
    """``--lf`` knows which files hold last run's failures by joining each failed id's path
    to the rootdir, as written: a suite file outside the rootdir (id ``../x.jsonl::...``; see
    ``collect.items.SuiteFile``) is then ``/root/../x.jsonl``, which no collected file's path
    equals, so once a file inside the rootdir had failures it was skipped whole, its failures
    not rerun. Its path is added as pytest would have it, with its parents, as pytest adds
    those of every failed id. pytest >= 9.2 parses ids (``.path``), older keeps strings."""
    lfplugin = config.pluginmanager.getplugin("lfplugin")
    paths = getattr(lfplugin, "_last_failed_paths", None)
    if not isinstance(paths, set):
        return
    for nodeid in getattr(lfplugin, "lastfailed", {}):
        given = str(getattr(nodeid, "path", None) or str(nodeid).split("::", 1)[0])
        if not given.startswith("../"):
            continue
        path = Path(os.path.normpath(config.rootpath / given))
        paths.update(p for p in (path, *path.parents) if p.exists())


# What pytest's full explanation of a failed comparison may be asked to diff: items of the
# operands, a string counting one per 64 characters. Past it (an answer of millions of
# items), the explanation is pytest's short one.
MOST_COMPARED = 10_000


@contextlib.contextmanager
def bounded_comparisons() -> Generator[None, None, None]:
    """Failed asserts of a benchmark's tests explained in full only for operands within
    :data:`MOST_COMPARED`: on CI and with ``-v`` pytest formats and diffs both operands
    whole, which for a sample's answer of millions of items took the grading process
    minutes past the sample's own time limit and printed tens of MB for one sample.
    The assert's own line shows such an operand cut as ``-v`` cuts it: with ``-vv`` pytest
    writes every operand whole, 25 MB for an answer of 400,000 numbers."""
    from _pytest._io.saferepr import DEFAULT_REPR_MAX_SIZE, saferepr
    from _pytest.assertion import rewrite, util

    full = util._reprcompare
    if full is None:  # assertion rewriting off: there is no explanation to bound
        yield
        return
    shown = rewrite._saferepr

    def bounded(op: str, left: object, right: object) -> str | None:
        if larger_than(left, MOST_COMPARED) or larger_than(right, MOST_COMPARED):
            return None  # the assert's own line, operands cut by pytest's saferepr
        return full(op, left, right)

    def bounded_repr(obj: object) -> str:
        if larger_than(obj, MOST_COMPARED):
            cut = saferepr(obj, maxsize=DEFAULT_REPR_MAX_SIZE * 10)
            return cut.replace("\n", "\\n")
        return shown(obj)

    util._reprcompare, rewrite._saferepr = bounded, bounded_repr
    try:
        yield
    finally:
        util._reprcompare, rewrite._saferepr = full, shown


def larger_than(value: object, most: int) -> bool:
    """Whether ``value`` holds more than ``most`` items, nested ones included (a string or
    bytes counting one per 64 characters), found looking at no more than that many."""
    pending = [value]
    seen = 0
    while pending:
        item = pending.pop()
        seen += 1
        if isinstance(item, (str, bytes)):
            seen += len(item) // 64
        elif isinstance(item, (list, tuple, set, frozenset, dict)):
            if seen + len(item) > most:
                return True
            pending.extend(item.items() if isinstance(item, dict) else item)
        if seen > most:
            return True
    return False


class _Deselected:
    """An item deselected in another process, as the terminal reporter's stats hold one."""


def count_deselected(config: pytest.Config, count: int) -> None:
    """Add ``count`` items deselected elsewhere (xdist's workers) to the ``N deselected`` of
    pytest's last line, which counts the terminal reporter's ``stats["deselected"]``."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and count:
        reporter.stats.setdefault("deselected", []).extend(_Deselected() for _ in range(count))
