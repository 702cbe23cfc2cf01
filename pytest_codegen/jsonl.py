"""JSON-lines files (suites, recorded samples, results): one JSON object per line.

Blank lines are skipped, ``.gz`` files are decompressed, and a bad line raises
:class:`JSONLinesError` naming the file and line; each reader turns it into its own error.
A suite's reader also refuses a line whose fields hold what UTF-8 cannot encode
(``text_only``).
"""

from __future__ import annotations

import gzip
import io
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from .sample_text import encodable_data, first_surrogate, json_may_hold_surrogates, visible

# What JSON counts as whitespace (str.strip would take more, U+2028 for one).
_JSON_SPACE = " \t\r\n"


class JSONLinesError(ValueError):
    """A line that is not a JSON object; the message starts with ``path:line``."""


class _GzipFile(gzip.GzipFile):
    """A ``.gz`` file whose damage anywhere is an ``OSError``, as a bad header's is: gzip
    raises ``EOFError`` for one cut short and ``zlib.error`` for corrupt data, which no
    reader of a file expects."""

    def read(self, size: int | None = -1) -> bytes:
        try:
            return super().read(size)
        except (EOFError, zlib.error) as e:
            raise gzip.BadGzipFile(str(e)) from None

    def read1(self, size: int = -1) -> bytes:
        try:
            return super().read1(size)
        except (EOFError, zlib.error) as e:
            raise gzip.BadGzipFile(str(e)) from None


def open_text(path: Path) -> IO[str]:
    if path.name.endswith(".gz"):
        return io.TextIOWrapper(_GzipFile(path), encoding="utf-8")
    return open(path, encoding="utf-8")


def first_value(path: Path) -> Any:
    """Line 1 of ``path`` parsed, None if it cannot be read or is not JSON (a cheap sniff of
    a file's format: only that line is read)."""
    try:
        with open_text(path) as fh:
            return json.loads(fh.readline())
    except (OSError, ValueError, EOFError):
        return None


def read_objects_at(
    path: Path, *, text_only: bool = False
) -> Iterator[tuple[str, dict[str, Any], tuple[int, int] | None]]:
    """As :func:`read_objects`, with each line's ``(offset, length)`` in bytes, which
    :func:`read_object_at` reads again; None for a ``.gz`` file, which no offset reads again
    without decompressing what comes before it."""
    if path.name.endswith(".gz"):
        for where, row in read_objects(path, text_only=text_only):
            yield where, row, None
        return
    offset = 0
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            span = (offset, len(raw))
            offset += len(raw)
            if not raw.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise JSONLinesError(f"{where}: not UTF-8 ({e.reason})") from None
            yield where, _parsed(line, where, text_only), span


def read_object_at(path: Path, offset: int, length: int) -> Any:
    """The JSON value of ``length`` bytes at ``offset`` of ``path`` (a line
    :func:`read_objects_at` found); raises ``OSError`` or ``ValueError``."""
    with open(path, "rb") as fh:
        fh.seek(offset)
        return json.loads(fh.read(length))


def loads(text: str) -> Any:
    """``json.loads(text)``; when that fails, the error is that of ``text`` without its
    trailing whitespace, whose place is where the text is cut short: json places an error at
    the end past a line's newline (line 2, column 1), and calls a string the line ends inside
    an invalid control character (the newline)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        stripped = text.rstrip(_JSON_SPACE)
        if stripped == text:
            raise
    return json.loads(stripped)  # fails too: trailing whitespace never makes JSON invalid


def not_valid_json(e: json.JSONDecodeError, unit: str = "line") -> str:
    """What is wrong, and where on its line: ``not valid JSON (Expecting ',' delimiter,
    column 31)`` (some of json's messages end in "at", for the position it would add); when
    the ``unit`` parsed (a line, a file; see :func:`loads`) ends before the value does, that
    too."""
    if e.msg.startswith("Unterminated string"):
        return f"not valid JSON ({e.msg} column {e.colno}: the {unit} ends inside it)"
    cut = f": the {unit} ends before its JSON value does" if e.pos >= len(e.doc) else ""
    return f"not valid JSON ({e.msg.removesuffix(' at')}, column {e.colno}{cut})"


def unencodable_field(row: dict[str, Any]) -> str | None:
    """Which string field of ``row`` holds a lone surrogate (from a ``\\ud800`` escape), as
    an error message, or None. Such a field is no text UTF-8 can encode: no prompt, test or
    id can be made of it. Values inside lists and objects are data (a test's arguments),
    which the grader passes on as they are."""
    for key, value in row.items():
        found = first_surrogate(value) if isinstance(value, str) else None
        if found is not None:
            return (
                f"field {visible(str(key))!r} holds a lone surrogate ({visible(found)}), "
                "which UTF-8 cannot encode"
            )
    return None


def _parsed(line: str, where: str, text_only: bool = False) -> dict[str, Any]:
    try:
        row = loads(line)
    except json.JSONDecodeError as e:
        raise JSONLinesError(f"{where}: {not_valid_json(e)}") from None
    if not isinstance(row, dict):
        raise JSONLinesError(f"{where}: expected a JSON object per line")
    if text_only:
        error = unencodable_field(row)
        if error is not None:
            raise JSONLinesError(f"{where}: {error}")
    return row


def read_objects(
    path: Path, *, encodable: bool = False, text_only: bool = False
) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, object)`` for each non-blank line; ``where`` is ``path:line``. With
    ``encodable``, a lone surrogate in a string (from a ``\\ud800`` escape another tool
    wrote) becomes U+FFFD (:mod:`pytest_codegen.sample_text`); with ``text_only``, one in a
    top-level string field raises :class:`JSONLinesError` instead (a suite's ids, prompts
    and tests, which replacing would change)."""
    with open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            row = _parsed(line, where, text_only)
            if encodable and json_may_hold_surrogates(line):
                row = encodable_data(row)
            yield where, row
