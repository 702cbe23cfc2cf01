"""Results files: one JSON line per sample record (``--codegen-results``, read back by
``--codegen-baseline`` and the HTML report's command line). The only module that writes or
reads them."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from .. import outcomes
from ..jsonl import read_objects

# Characters that JSON leaves as they are but that Unicode-aware line splitters (Python's
# str.splitlines) take as line breaks: escaped, so a record stays one line for every reader.
# (JSON's structure is ASCII, so they can only stand inside a string, where the escape means
# the same character.)
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


class ResultsWriter:
    """Appends one JSON line per sample as soon as it is graded, straight to the file.

    A write the file system refuses (a full disk, a file size limit) stops the writing, not
    the run: the file is cut back to its last whole line, so that ``--codegen-resume`` reads
    it and grades the rest, and :attr:`error` says what happened."""

    def __init__(self, path: Path, append: bool = False) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.append = append  # a resumed run (--codegen-resume) appends; others start afresh
        self.written = 0  # records written whole
        self.error: str | None = None  # why the later records were not written
        self._fh: BinaryIO | None = None
        self._closed = False

    def start(self) -> None:
        """Open the file (emptied unless appending), if no record has yet. Not before: a run
        that stops before grading (a usage error found at collection) leaves an earlier
        run's file as it was."""
        if self._fh is None and not self._closed:
            try:
                self._fh = self.path.open("ab" if self.append else "wb", buffering=0)
            except OSError as e:
                self.error = e.strerror or str(e)
                self._closed = True

    def write(self, record: Mapping[str, Any]) -> None:
        self.start()
        if self._fh is None:
            return
        text = json.dumps(record, ensure_ascii=False).translate(_LINE_BREAKS) + "\n"
        line = memoryview(text.encode("utf-8"))
        whole = self._fh.tell()
        try:
            while line:  # an unbuffered write may take part of it
                line = line[self._fh.write(line) or 0 :]
        except OSError as e:
            self.error = e.strerror or str(e)
            with contextlib.suppress(OSError):
                self._fh.truncate(whole)
            self.close()
            return
        self.written += 1

    def close(self) -> None:
        self._closed = True
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def load_results(path: str | Path) -> list[dict[str, Any]]:
    """Read a results JSONL file (one record per line; ``.gz`` is decompressed).

    Blank lines are skipped; a line that is not a JSON object raises :class:`ValueError`
    naming the file and line. Records are read as a run writes them: a lone surrogate (a
    ``\\ud800`` escape another tool wrote) becomes U+FFFD (:mod:`pytest_codegen.sample_text`).
    """
    return [record for _, record in read_objects(Path(path), encodable=True)]


# Fields of a sample record (reporting.records) that scores and the baseline gate read.
SCORED_FIELDS = ("suite", "task_id", "outcome")


def load_sample_records(
    path: str | Path, required: tuple[str, ...] = SCORED_FIELDS
) -> list[dict[str, Any]]:
    """As :func:`load_results`, checked to be a run's results: :class:`ValueError` naming the
    file and line of the first record without the ``required`` fields (a samples file,
    another tool's JSON lines), which would otherwise fail the scores after a whole run,
    and naming the file of one that cannot be read."""
    try:
        return list(_sample_records(Path(path), required))
    except UnicodeDecodeError as e:  # a ValueError, which says neither file nor line
        raise ValueError(f"{path}: cannot read (not UTF-8: {e.reason})") from None
    except OSError as e:  # nor does a .gz file's damage
        raise ValueError(f"{path}: cannot read ({e.strerror or e})") from None


def _sample_records(path: Path, required: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    for where, record in read_objects(path, encodable=True):
        missing = [name for name in required if name not in record]
        if missing:
            fields = ", ".join(missing)
            if all(name in record for name in SCORED_FIELDS):
                # A results file's record, of a version that did not write every field.
                raise ValueError(
                    f"{where}: a record without {fields} (written by an earlier pytest-codegen?)"
                    "; grade again into a new --codegen-results file"
                )
            # The usual mistake: the samples a run replays given for the results it wrote.
            hint = (
                "; a samples file? give a --codegen-results file"
                if "completion" in record or "solution" in record
                else ""
            )
            raise ValueError(f"{where}: not a sample record of a results file (no {fields}{hint})")
        wrong = _wrong_field(record)
        if wrong:
            raise ValueError(f"{where}: not a sample record of a results file ({wrong})")
        yield record


def _wrong_field(record: Mapping[str, Any]) -> str | None:
    """What a field that scores and reports read holds instead of what a record's does
    (:class:`~.records.SampleRecord`), or None: such a record would fail the summary once
    everything was read (an outcome that is a list), or count wrongly (one spelled
    ``PASSED``, left out of the graded samples)."""
    text = {"nodeid": str, "suite": str, "task_id": str, "category": (str, type(None))}
    for name, kind in {**text, "data": (dict, type(None))}.items():
        if name in record and not isinstance(record[name], kind):
            what = "an object" if name == "data" else "text"
            return f"{name} is {json.dumps(record[name])[:80]}, not {what}"
    if "outcome" in record and record["outcome"] not in outcomes.ALL:
        return f"outcome {json.dumps(record['outcome'])[:80]} is none of {', '.join(outcomes.ALL)}"
    return None
