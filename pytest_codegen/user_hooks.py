"""Calls of this plugin's hooks (``pytest_codegen_*``, see :mod:`.hookspecs`) that a
conftest.py or another plugin may implement: an implementation that raises is told in one
line naming the hook, the line of the implementation the error came through and the error,
with exit status 4 and the same with xdist, instead of an INTERNALERROR and pluggy's
traceback. This plugin's own implementations raise as they always did (their errors are
handled where the hook is called)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pluggy
import pytest

_PLUGGY = str(Path(pluggy.__file__).resolve().parent)
_PACKAGE = str(Path(__file__).resolve().parent)


class HookFailure(pytest.UsageError):
    """A hook implementation that is not this plugin's raised; the message is the line."""


def call_hook(name: str, /, **kwargs: Any) -> Any:
    """``config.hook.<name>(**kwargs)``, ``config`` being one of ``kwargs`` (every hook of
    this plugin's takes it); :class:`HookFailure` when an implementation that is not this
    plugin's raised."""
    config = kwargs["config"]
    try:
        return getattr(config.hook, name)(**kwargs)
    except HookFailure:
        raise
    except Exception as e:
        where = implementation_line(config, e)
        if where is None:
            raise
        raise HookFailure(f"{name} ({where}) raised {type(e).__name__}: {e}") from None


def implementation_line(config: pytest.Config, error: BaseException) -> str | None:
    """``FILE:LINE`` of the hook implementation ``error`` came through (the first frame past
    pluggy's), or None when that implementation is this plugin's own."""
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    past = [i for i, (file, _) in enumerate(frames) if file.startswith(_PLUGGY)]
    if not past or past[-1] + 1 >= len(frames):
        return None
    file, line = frames[past[-1] + 1]
    path = Path(file).resolve()
    if str(path).startswith(_PACKAGE):
        return None
    try:
        shown = str(path.relative_to(config.rootpath))
    except ValueError:
        shown = str(path)
    return f"{shown}:{line}"


def tell_hook_failures(failures: list[str], session: pytest.Session) -> None:
    """At the run's end: the first of ``failures`` (an implementation of
    ``pytest_codegen_sample_graded`` that raised, one line each) and how many more, exit 4."""
    if failures:
        more = f" (and on {len(failures) - 1} more samples)" if len(failures) > 1 else ""
        sys.stderr.write(f"ERROR: {failures[0]}{more}\n")
        session.exitstatus = pytest.ExitCode.USAGE_ERROR
