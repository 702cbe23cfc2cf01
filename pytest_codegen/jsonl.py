"""JSON-lines files (suites, recorded samples, results): one JSON object per line.

Blank lines are skipped, ``.gz`` files are decompressed, and a bad line raises
:class:`JSONLinesError` naming the file and line; each reader turns it into its own error.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from .sample_text import encodable_data, json_may_hold_surrogates


class JSONLinesError(ValueError):
    """A line that is not a JSON object; the message starts with ``path:line``."""


def open_text(path: Path) -> IO[str]:
    opener = gzip.open if path.name.endswith(".gz") else open
    return opener(path, "rt", encoding="utf-8")  # type: ignore[operator, no-any-return]


def first_value(path: Path) -> Any:
    """Line 1 of ``path`` parsed, None if it cannot be read or is not JSON (a cheap sniff of
    a file's format: only that line is read)."""
    try:
        with open_text(path) as fh:
            return json.loads(fh.readline())
    except (OSError, ValueError, EOFError):
        return None


def read_objects(path: Path, *, encodable: bool = False) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, object)`` for each non-blank line; ``where`` is ``path:line``. With
    ``encodable``, a lone surrogate in a string (from a ``\\ud800`` escape another tool
    wrote) becomes U+FFFD (:mod:`pytest_codegen.sample_text`)."""
    with open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise JSONLinesError(f"{where}: not valid JSON ({e.msg})") from None
            if not isinstance(row, dict):
                raise JSONLinesError(f"{where}: expected a JSON object per line")
            if encodable and json_may_hold_surrogates(line):
                row = encodable_data(row)
            yield where, row
