"""Text from models and samples, made safe to write and to show.

A model's answer and whatever a sample prints or raises are arbitrary Python strings. Two
things can go wrong with them:

- **Writing.** A string may hold a lone surrogate (``"\\ud800"``: a ``chr(0xD800)`` in an
  exception message, a ``\\ud800`` escape in a model's JSON reply), which UTF-8 cannot
  encode: the results file, the generation cache and xdist's wire (execnet) refuse it.
  :func:`encodable` replaces each lone surrogate with U+FFFD (REPLACEMENT CHARACTER), after
  joining a high and low surrogate that stand next to each other into the character they
  encode; every other character is kept as it is. (Undecodable bytes a sample writes are
  already decoded with U+FFFD for each bad byte.) :func:`encodable_data` does it to every
  string of a record. Applied where such text enters the plugin's data, so that no writer
  has to: what goes to and comes from a model (``Prompt`` and ``Completion`` in
  :mod:`~pytest_codegen.models.base`, when they are made: before the generation cache, the
  wire to remote hosts and grading), a sample's record before it leaves the worker
  (``SampleRunner.pytest_runtest_makereport``; xdist's serializer is given encodable reports
  by the same runner) and a results file when it is read back (``load_results``). The
  results file, JUnit XML, the HTML report and a merge then write the text as it is. A
  suite's text is not replaced but refused when it is read (``jsonl.unencodable_field``):
  a prompt, test or id changed would be another problem.
- **Showing.** On a terminal, ESC sequences clear the screen or print a fake result, and NUL,
  BEL, BS, CR or C1 controls hide or rewrite what came before. :func:`visible` writes every
  character that ``repr()`` would escape as ``repr()`` escapes it (``\\x1b``, ``\\x00``,
  ``\\r``, ``\\u202e``, ``\\ud800``), except newline and tab, so code and output stay
  readable. Applied to what a sample's test report shows: its failure headline, its report
  sections (generated code, sample output, sample traceback) and its skip or xfail reason.
"""

from __future__ import annotations

import json
import re
from typing import Any

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")
# A ``\uD800``-``\uDFFF`` escape: the one way JSON read as strict UTF-8 yields a surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_SHOWN_AS_IS = "\n\t"


def encodable(text: str) -> str:
    """``text`` as UTF-8 can hold it: an adjacent high and low surrogate joined into the
    character they encode, a lone surrogate replaced with U+FFFD; anything else unchanged."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def first_surrogate(text: str) -> str | None:
    """The first surrogate in ``text`` (a lone one, as JSON decodes: it joins an escaped
    pair), None if it holds none."""
    if text.isascii():  # nearly always, and far quicker to tell than a search
        return None
    found = _SURROGATE.search(text)
    return found.group() if found is not None else None


def encodable_data(value: Any) -> Any:
    """JSON-like data (dicts, lists, tuples, scalars) with :func:`encodable` applied to every
    string in it, keys included: ``value`` itself when none holds a surrogate (nearly always,
    and one pass of json's C encoder tells: every record and report of a run goes through
    here), else a copy."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not JSON data throughout: each part looked at
        return _encodable_copy(value)
    return value if _SURROGATE.search(text) is None else _encodable_copy(value)


def _encodable_copy(value: Any) -> Any:
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, dict):
        return {_encodable_copy(k): _encodable_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_encodable_copy(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_encodable_copy(v) for v in value)
    return value


def json_may_hold_surrogates(line: str) -> bool:
    """Whether JSON text (decoded as strict UTF-8, which admits no surrogate) may decode to a
    string holding one: only through a ``\\uD800``-``\\uDFFF`` escape. Lets a reader skip
    :func:`encodable_data` on the (nearly all) lines that have none."""
    return _SURROGATE_ESCAPE.search(line) is not None


def visible(text: str) -> str:
    """``text`` for a terminal: each character ``repr()`` would escape (control characters,
    C1 controls, format and separator characters, lone surrogates) written as ``repr()``
    writes it, newline and tab kept as they are."""
    if text.replace("\n", "").replace("\t", "").isprintable():
        return text
    return "".join(c if c.isprintable() or c in _SHOWN_AS_IS else repr(c)[1:-1] for c in text)


class VisibleLines:
    """A terminal reporter whose ``write_line`` and ``write_sep`` show text as
    :func:`visible` does: for summaries of what results files hold (task ids, categories,
    model names another run or tool wrote), where an escape sequence would act on the
    terminal instead of showing."""

    def __init__(self, terminalreporter: Any) -> None:
        self.tr = terminalreporter

    def write_line(self, line: str, **markup: bool) -> None:
        self.tr.write_line(visible(line), **markup)

    def write_sep(self, sep: str, title: str | None = None, **markup: bool) -> None:
        self.tr.write_sep(sep, visible(title) if title is not None else None, **markup)


def show_visibly(report: Any) -> None:
    """Make what a sample's (or a build fragment's) test report shows on the terminal (its
    headline, skip reason and sections: generated code, sample output and traceback) show
    control characters as escapes (:func:`visible`); a full traceback (a plugin error) is
    pytest's."""
    longrepr = report.longrepr
    if isinstance(longrepr, str):
        report.longrepr = visible(longrepr)
    elif isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, reason)
        report.longrepr = (longrepr[0], longrepr[1], visible(str(longrepr[2])))
    report.sections = [(title, visible(content)) for title, content in report.sections]
