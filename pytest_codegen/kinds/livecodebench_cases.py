"""LiveCodeBench's test cases as its release files store them, decoded when a problem is
graded, not when the file is read.

``public_test_cases`` is a JSON string; ``private_test_cases`` is either one too or (most
rows) base64 of zlib of a pickle of such a string. The pickle comes from a download, so it
is read by :class:`PlainDataUnpickler`, which builds only what pickle's own opcodes build
(str, bytes, numbers, lists, tuples, dicts, sets, booleans, None) and refuses every global:
a pickle that names a class or function to call (how a pickle runs code) is rejected
before anything of it runs. Decoding every problem of a release at once costs gigabytes
(one harness found v6's, decoded up front, wrote 12.1 GB), so a problem's cases are decoded
on first use and only the last two problems' are kept; nor is a problem's blob kept between
its gradings: the loader keeps where its row is in the file (a ``.gz`` file's rows excepted),
and the row is read again when the problem is graded.
"""

from __future__ import annotations

import base64
import binascii
import functools
import io
import json
import pickle
import zlib
from pathlib import Path
from typing import Any

from ..jsonl import read_object_at
from ..problems import SuiteError

# The most a problem's hidden tests may decompress to: a bound against a zlib bomb.
MAX_DECOMPRESSED_BYTES = 1 << 30
STDIN, FUNCTIONAL = "stdin", "functional"


class PlainDataUnpickler(pickle.Unpickler):
    """An unpickler for plain data only: any global (class, function) is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(
            f"refused to load {module}.{name}: test data holds only plain built-in values"
        )


def plain_pickle_loads(data: bytes) -> Any:
    return PlainDataUnpickler(io.BytesIO(data)).load()


def decode_private(blob: str, where: str) -> list[dict[str, Any]]:
    """The test cases in a ``private_test_cases`` field (JSON, or base64+zlib+pickle of JSON)."""
    try:
        cases = json.loads(blob)
    except (ValueError, RecursionError):
        cases = None
    if cases is None:
        try:
            packed = base64.b64decode(blob.encode("ascii"), validate=False)
            inflater = zlib.decompressobj()
            raw = inflater.decompress(packed, MAX_DECOMPRESSED_BYTES)
            if inflater.unconsumed_tail:
                raise SuiteError(
                    f"{where}: private_test_cases decompress to more than "
                    f"{MAX_DECOMPRESSED_BYTES >> 20} MiB"
                )
            text = plain_pickle_loads(raw)
            cases = json.loads(text) if isinstance(text, (str, bytes)) else text
        except SuiteError:
            raise
        except (
            binascii.Error,
            zlib.error,
            pickle.UnpicklingError,
            ValueError,
            EOFError,
            RecursionError,
            UnicodeError,
            TypeError,
            IndexError,
            KeyError,
        ) as e:
            raise SuiteError(
                f"{where}: private_test_cases is neither JSON nor base64+zlib+pickle "
                f"of JSON ({type(e).__name__}: {str(e)[:200]})"
            ) from None
    return checked_cases(cases, where, "private_test_cases")


def checked_cases(cases: Any, where: str, field: str) -> list[dict[str, Any]]:
    """``cases`` if it is a list of ``{input, output, testtype}`` with string values."""
    if not isinstance(cases, list):
        raise SuiteError(f"{where}: {field} is not a list of test cases")
    for i, case in enumerate(cases):
        if not (
            isinstance(case, dict)
            and isinstance(case.get("input"), str)
            and isinstance(case.get("output"), str)
            and case.get("testtype") in (STDIN, FUNCTIONAL)
        ):
            raise SuiteError(
                f"{where}: {field}[{i}] is not a test case "
                '({"input": str, "output": str, "testtype": "stdin" or "functional"})'
            )
    return cases


def decode_public(text: str, where: str) -> list[dict[str, Any]]:
    try:
        cases = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise SuiteError(f"{where}: public_test_cases is not JSON ({e})") from None
    return checked_cases(cases, where, "public_test_cases")


def decoded_cases(public: str, private: str, where: str) -> tuple[tuple[dict[str, Any], bool], ...]:
    """A problem's cases, public first, each with whether it is hidden."""
    shown = decode_public(public, where)
    hidden = decode_private(private, where) if private else []
    return tuple([(case, False) for case in shown] + [(case, True) for case in hidden])


@functools.lru_cache(maxsize=2)
def problem_cases(public: str, private: str, where: str) -> tuple[tuple[dict[str, Any], bool], ...]:
    """A problem's cases, public first, each with whether it is hidden; kept for the few
    problems graded last (a problem's samples are graded one after another)."""
    return decoded_cases(public, private, where)


@functools.lru_cache(maxsize=2)
def cases_at(
    source: str, offset: int, length: int, question_id: str, where: str
) -> tuple[tuple[dict[str, Any], bool], ...]:
    """The cases of the row at ``offset`` of the release file ``source``, read again now
    (as :func:`problem_cases`); a row that is no longer there, or is another problem's,
    raises ``SuiteError``."""
    try:
        row = read_object_at(Path(source), offset, length)
    except OSError as e:
        raise SuiteError(f"{where}: cannot read the row again ({e})") from None
    except ValueError:
        row = None  # no longer a row at its offset
    if not isinstance(row, dict) or row.get("question_id") != question_id:
        raise SuiteError(f"{where}: the file changed since it was read (no longer this row)")
    public, private = row.get("public_test_cases"), row.get("private_test_cases")
    if not isinstance(public, str) or not isinstance(private, str):
        raise SuiteError(f"{where}: the file changed since it was read (its tests are gone)")
    return decoded_cases(public, private, where)
