"""The files a run writes (``--codegen-results``, ``--codegen-html``, ``--codegen-build-out``
and its report, ``--codegen-compare-out``), checked where the run starts: a path no file can be
written to, or a file the build reads, is one usage-error line before anything is graded,
rather than a traceback once everything was (or the input written over). A missing directory
is created by the writer, as before; one that cannot be (a file in its place, no permission)
is refused here.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from .models.specs import replay_path
from .options import OPTIONS
from .settings import Settings


def output_files(config: pytest.Config, settings: Settings) -> list[tuple[str, Path]]:
    """Each file this run will write: (the option's name, the path, as its writer takes it)."""
    base = Path(config.invocation_params.dir)
    named: list[tuple[str, str | Path | None]]
    if settings.compare:  # a comparison writes its JSON and its page, nothing else
        named = [("compare_out", settings.compare_out), ("html", settings.html)]
    else:
        named = [("results", settings.results), ("html", settings.html)]
    found = [(name, base / path) for name, path in named if path]
    if settings.build is not None and not settings.compare and not settings.merge:
        from .builder.collector import suite_path
        from .builder.output import report_path

        out = suite_path(config, settings)
        found += [("build_out", out), ("build_out", report_path(out))]
    return found


def check_output_files(config: pytest.Config, settings: Settings) -> None:
    """``UsageError`` (one line naming the option and the path) for the first file of
    :func:`output_files` that cannot be written, or that another output (one of them, or
    ``--junitxml``) writes too."""
    base = Path(config.invocation_params.dir)
    inputs = input_files(config, settings)
    # Two outputs at one path: the one written last would be all the file holds.
    written: dict[Path, str] = {}
    junit = getattr(config.option, "xmlpath", None)
    if junit:
        written[(base / junit).resolve()] = "--junitxml"
    for name, path in output_files(config, settings):
        problem = unwritable(path, base)
        if not problem and path.resolve() in inputs:
            problem = f"{shown_path(path, base)} is {inputs[path.resolve()]}"
        if not problem and path.resolve() in written:
            other = written[path.resolve()]
            problem = f"{shown_path(path, base)} is also the file of {other} (give each its own)"
        written.setdefault(path.resolve(), source_of(config, name))
        if not problem and name == "results" and path.name.endswith(".gz"):
            # Written line by line as plain text, which every reader of a .gz would refuse.
            problem = (
                f"{shown_path(path, base)}: results are written as plain JSON lines,"
                " not gzip (give a name without .gz)"
            )
        if not problem and name == "build_out":
            problem = _not_a_suite(config, settings, path)
        if problem:
            raise pytest.UsageError(f"{source_of(config, name)}: {problem}")


def _not_a_suite(config: pytest.Config, settings: Settings, path: Path) -> str | None:
    """Why the build must not write its suite at ``path`` (a file no build wrote), or None."""
    from .builder.collector import suite_path
    from .builder.output import earlier_rows

    if path != suite_path(config, settings):
        return None  # the report beside it
    try:
        earlier_rows(path)
    except ValueError as e:
        return f"{shown_path(path, Path(config.invocation_params.dir))} {e}"
    return None


def input_files(config: pytest.Config, settings: Settings) -> dict[Path, str]:
    """The files this run reads that a file it writes must not be written over (resolved),
    each with what it is: the build's inputs, the samples ``replay:PATH`` replays, the suite
    files named on the command line, the results files compared, the baseline."""
    base = Path(config.invocation_params.dir)
    inputs: dict[Path, str] = {}
    if settings.build is not None:
        from .builder.inputs import input_files as build_inputs

        for f in build_inputs(str(settings.build), base):
            inputs[f.resolve()] = "an input of the build (--codegen-build)"
    if settings.compare:
        for name in (*settings.compare, *(config.option.file_or_dir or ())):
            inputs[(base / name).resolve()] = "a results file this run compares (--codegen-compare)"
        return inputs
    if settings.baseline is not None:
        # Written over, the baseline a later run would compare with is this run's own.
        inputs[(base / settings.baseline).resolve()] = "the baseline (--codegen-baseline)"
    replayed = replay_path(settings.model or "", settings.model_base or base)
    if replayed is not None and not settings.merge:
        inputs[replayed.resolve()] = "the samples file this run replays (--codegen-model)"
    for arg in config.args if settings.build is None and not settings.merge else ():
        path = base / arg.split("::", 1)[0]
        if path.is_file():
            inputs.setdefault(path.resolve(), "a suite file this run grades")
    return inputs


def unwritable(path: Path, base: Path) -> str | None:
    """Why no file can be written at ``path``, or None; paths are shown relative to ``base``
    (where pytest was started). Nothing is left behind: an existing file is opened to append
    and closed, unchanged; a new one is tried as a temporary file in the nearest directory
    that exists."""
    if path.is_dir():
        return f"{shown_path(path, base)} is a directory (give a file's path)"
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        parent = shown_path(ancestor, base)
        return f"cannot write {shown_path(path, base)}: {parent} is not a directory"
    try:
        if path.exists():
            with path.open("a", encoding="utf-8"):
                pass
        else:
            # A real attempt, not os.access: root passes that check where the filesystem
            # still refuses (a read-only mount, /sys).
            fd, probe = tempfile.mkstemp(prefix=".codegen-write-check-", dir=ancestor)
            os.close(fd)
            os.unlink(probe)
    except OSError as e:
        return f"cannot write {shown_path(path, base)} ({e.strerror or e})"
    return None


def write_text_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (its directory made); a write the file system refuses (a
    full disk) leaves no part of a file behind, and raises its ``OSError``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError:
        if path.is_file():  # not a device's node
            path.unlink()
        raise


def cannot_write(config: pytest.Config, name: str, path: Path, reason: str) -> str:
    """The line that says the file of option ``name`` could not be written, and why."""
    return refused_line(source_of(config, name), path, Path(config.invocation_params.dir), reason)


def refused_line(flag: str, path: Path, base: Path, reason: str) -> str:
    """The line that says the file ``flag`` names could not be written, and why."""
    return f"{flag}: cannot write {shown_path(path, base)} ({reason})"


def shown_path(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` (where pytest was started) when it lies under it."""
    return str(path.relative_to(base)) if path.is_relative_to(base) else str(path)


def source_of(config: pytest.Config, name: str) -> str:
    """The option as the user gave it: its flag, or its ini key."""
    opt = next(o for o in OPTIONS if o.name == name)
    if config.getoption(opt.flag_name) is not None or not config.getini(opt.ini_name):
        return opt.flag_name
    return f"ini key {opt.ini_name}"
