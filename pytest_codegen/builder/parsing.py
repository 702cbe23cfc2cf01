"""``ast.parse`` one thread at a time, on the Pythons where it is not thread-safe.

On CPython before 3.11.8 and 3.12.2 (gh-106905), turning a parse tree into ``ast`` objects
keeps its recursion depth in interpreter-wide state; when the garbage collector runs Python
code in the middle of it and another thread parses meanwhile, one of them fails with
``SystemError: AST constructor recursion depth mismatch``. A build parses in many threads at
once (the AST checks, the mutants, splicing programs, and the carets of Python 3.11's
tracebacks), so from the start of its threads to their end (:func:`install`, then
:func:`uninstall`) every ``ast.parse`` of the process goes through one lock.
"""

from __future__ import annotations

import ast
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

AFFECTED = sys.version_info < (3, 11, 8) or (3, 12) <= sys.version_info < (3, 12, 2)

_original = ast.parse
_lock = threading.RLock()
_users = 0


def _parse_one_at_a_time(*args: Any, **kwargs: Any) -> Any:
    with _lock:
        return _original(*args, **kwargs)


def install(force: bool = False) -> None:
    """Route ``ast.parse`` through the lock (on an affected Python, or with ``force``)."""
    global _users
    if AFFECTED or force:
        with _lock:
            _users += 1
            ast.parse = _parse_one_at_a_time


def uninstall() -> None:
    """Undo one :func:`install`; the last one restores ``ast.parse``."""
    global _users
    with _lock:
        if ast.parse is _parse_one_at_a_time:
            _users -= 1
            if _users <= 0:
                _users = 0
                ast.parse = _original


@contextmanager
def serialized(force: bool = False) -> Iterator[None]:
    """:func:`install` for the ``with`` block."""
    install(force)
    try:
        yield
    finally:
        uninstall()
