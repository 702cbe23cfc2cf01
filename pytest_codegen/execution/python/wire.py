"""Plain data across the sandbox boundary.

Values travel as JSON-ready data with a few tags for the Python types JSON lacks (tuple, set,
bytes, dates, Decimal, non-finite floats, ints past the digit limit, non-string dict keys):
replies from the sample as JSON lines, requests to it as marshal frames (see
:func:`dumps_request`). Decoding only ever builds those built-in types, and NumPy's numbers and
arrays of numbers (rebuilt from plain data by the trusted side's own NumPy, so that they
compare as they do under the benchmark's own grader), so an object from the sample that lies
about equality, or a forged result object, cannot reach the trusted side: at most it is plain
data a correct answer would also produce. Objects that are not plain data stay in the sandbox
and cross as ``{"$ref": id}``.
"""

from __future__ import annotations

import base64
import collections
import datetime
import decimal
import json
import marshal
import math
import os
import re
import sys
from collections.abc import Iterator
from typing import Any


class WireError(Exception):
    """A message that is not well-formed plain data."""


_SCALARS = (type(None), bool, int, str)
# The types that cross as themselves (encode()'s own cases).
_PLAIN = frozenset(
    {*_SCALARS, float, list, tuple, dict, set, frozenset, bytes, complex, decimal.Decimal}
    | {datetime.datetime, datetime.date, datetime.time, datetime.timedelta}
)
# An int of 4300 digits or more has no str() (Python's digit limit), so JSON cannot write or
# read it: one this far from 0 (3,900 digits and more) crosses in hex, which has no limit.
_DECIMAL_INTS = 1 << 13_000
# How deep an answer may nest (lists in lists, tuples, sets, dicts and their keys). Each level
# is up to three frames of encode() or decode_value() and three levels of JSON, in the sample
# and in the grading process: an answer nested deeper would meet the recursion limit while
# being written or read (in the grading process, under its own frames), so it is refused as
# not plain data wherever it is met.
MAX_DEPTH = 200


def _deeper(depth: int) -> int:
    if depth >= MAX_DEPTH:
        raise WireError(f"nested more than {MAX_DEPTH} deep")
    return depth + 1


def encode(value: Any, ref: Any = None, depth: int = 0) -> Any:
    """Turn ``value`` into JSON-ready data; ``ref(obj)`` names objects that are not plain data.
    ``depth``: how deep ``value`` already is in the answer (see :data:`MAX_DEPTH`)."""
    t = type(value)
    if t in _SCALARS:
        if t is int and not -_DECIMAL_INTS < value < _DECIMAL_INTS:
            return {"$x": hex(value)}
        return value
    if t is float:
        return value if math.isfinite(value) else {"$f": repr(value)}
    if t is list:
        inner = _deeper(depth)
        return [encode(v, ref, inner) for v in value]
    if t is tuple:
        inner = _deeper(depth)
        return {"$t": [encode(v, ref, inner) for v in value]}
    if t is dict:
        inner = _deeper(depth)
        return {"$d": [[encode(k, ref, inner), encode(v, ref, inner)] for k, v in value.items()]}
    if t is set or t is frozenset:
        inner = _deeper(depth)
        return {"$s" if t is set else "$fs": [encode(v, ref, inner) for v in value]}
    if t is bytes:
        return {"$b": base64.b64encode(value).decode("ascii")}
    if t is complex:
        return {"$c": [encode(value.real), encode(value.imag)]}
    if t is datetime.datetime:
        return {"$dt": value.isoformat()}
    if t is datetime.date:
        return {"$date": value.isoformat()}
    if t is datetime.time:
        return {"$time": value.isoformat()}
    if t is datetime.timedelta:
        return {"$td": [value.days, value.seconds, value.microseconds]}
    if t is decimal.Decimal:
        return {"$dec": str(value)}
    numpy = sys.modules.get("numpy")  # only a program that imported it can hold its values
    if numpy is not None and isinstance(value, (numpy.generic, numpy.ndarray)):
        tagged = _numpy_value(value, numpy, depth)
        if tagged is not None:
            return tagged
    # Subclasses of plain types (namedtuple, OrderedDict, IntEnum, str subclasses...) cross as
    # their plain base value: whatever they override stays behind. By its real type: an
    # object can claim any class through a ``__class__`` property, and isinstance believes it.
    for base, convert in _BASES:
        if issubclass(t, base):
            return encode(convert(value), ref, depth)
    if ref is None:
        raise WireError(f"{t.__name__} object is not plain data")
    return {"$ref": ref(value)}


def crossed_as_base(value: Any, encoded: Any) -> bool:
    """Whether ``value`` (encoded as ``encoded``) crossed as the plain value of a type it
    subclasses: a grader that checks an answer's type (EvalPlus's) must not take it for one."""
    if type(value) in _PLAIN or isinstance(encoded, dict) and {"$np", "$nd", "$ref"} & set(encoded):
        return False
    return any(issubclass(type(value), base) for base, _ in _BASES)


def _held_items(value: dict[Any, Any]) -> Any:
    """A dict's items as it holds them; an ``OrderedDict``'s in its own order (which
    ``move_to_end`` changes, and a test may read), as the standard library keeps it."""
    if issubclass(type(value), collections.OrderedDict):
        return collections.OrderedDict.items(value)
    return dict.items(value)


# Each reads the value the object holds, as its base type's own ``==`` compares it, never
# through a method the subclass may override (``__iter__``, ``keys``, ``__bytes__``): what
# crosses is what the benchmark's own grader would have compared.
_BASES: tuple[tuple[type, Any], ...] = (
    (bool, bool),
    (int, int.__index__),
    (float, float.__float__),
    (str, str.__str__),
    (bytes, bytes.__bytes__),
    (tuple, lambda value: tuple.__getitem__(value, slice(None))),
    (list, list.copy),
    (dict, lambda value: dict(_held_items(value))),
    (frozenset, frozenset),  # a set's items are read from the set itself, not by __iter__
    (set, set),
)


# NumPy's booleans, integers, floats up to 64 bits and complex numbers up to 128, by their
# dtype's string ('<i8', '|b1', '<f4', ...): what a value's .item() or an array's .tolist()
# turns into plain data exactly.
_NUMPY_DTYPE = re.compile(r"[<>|=]?(b1|[iu][1248]|f[248]|c(8|16))")


def _numpy_value(value: Any, numpy: Any, depth: int) -> dict[str, Any] | None:
    """A NumPy number or array of numbers as tagged plain data; None for anything else (a
    subclass, an object array, a date: those stay in the sandbox)."""
    dtype = value.dtype
    if not _NUMPY_DTYPE.fullmatch(dtype.str):
        return None
    if isinstance(value, numpy.generic):
        return {"$np": [dtype.str, encode(value.item())]}
    if type(value) is not numpy.ndarray:
        return None
    return {"$nd": [dtype.str, list(value.shape), encode(value.tolist(), None, depth)]}


def _numpy_decoded(tag: str, payload: list[Any], depth: int) -> Any:
    """The NumPy number or array :func:`_numpy_value` describes, made by this side's NumPy."""
    if type(payload[0]) is not str or not _NUMPY_DTYPE.fullmatch(payload[0]):
        raise WireError("malformed NumPy type")
    import numpy  # only when a value needs it: a grading process may never

    dtype = numpy.dtype(payload[0])
    if tag == "$np":
        (item,) = payload[1:]
        if type(item) not in (bool, int, float) and not isinstance(item, dict):
            raise WireError("malformed NumPy number")
        item = decode_value(item, None, depth)
        if type(item) not in (bool, int, float, complex):
            raise WireError("malformed NumPy number")
        return dtype.type(item)
    shape, data = payload[1:]
    if type(shape) is not list or not all(type(n) is int and n >= 0 for n in shape):
        raise WireError("malformed NumPy shape")
    array = numpy.array(decode_value(data, None, depth), dtype=dtype)
    if array.shape != tuple(shape):
        if array.size != 0 or math.prod(shape) != 0:
            raise WireError("malformed NumPy array")
        array = array.reshape(shape)  # an empty array of some shape lists as []
    return array


def _decode_tagged(obj: dict[str, Any], remote: Any, depth: int) -> Any:
    if len(obj) != 1:
        raise WireError(f"malformed value with keys {sorted(obj)[:5]}")
    ((tag, payload),) = obj.items()
    if tag in ("$t", "$d", "$s", "$fs"):
        depth = _deeper(depth)
    if tag == "$t":
        return tuple(decode_value(v, remote, depth) for v in _list(payload))
    if tag == "$d":
        keys, values = [], []
        for pair in _list(payload):
            if type(pair) is not list or len(pair) != 2:
                raise WireError("malformed dict entry")
            keys.append(decode_value(pair[0], remote, depth))
            values.append(decode_value(pair[1], remote, depth))
        return dict(zip(few_alike(keys), values, strict=True))
    if tag == "$s":
        return set(few_alike([decode_value(v, remote, depth) for v in _list(payload)]))
    if tag == "$fs":
        return frozenset(few_alike([decode_value(v, remote, depth) for v in _list(payload)]))
    if tag == "$f":
        if payload not in ("nan", "inf", "-inf"):
            raise WireError("malformed float")
        return float(payload)
    if tag == "$x":
        return int(_str(payload), 16)
    if tag == "$b":
        return base64.b64decode(_str(payload), validate=True)
    if tag == "$c":
        re, im = _list(payload)
        return complex(float(re), float(im))
    if tag == "$dt":
        return datetime.datetime.fromisoformat(_str(payload))
    if tag == "$date":
        return datetime.date.fromisoformat(_str(payload))
    if tag == "$time":
        return datetime.time.fromisoformat(_str(payload))
    if tag == "$td":
        days, seconds, micros = (int(x) for x in _list(payload))
        return datetime.timedelta(days=days, seconds=seconds, microseconds=micros)
    if tag == "$dec":
        return decimal.Decimal(_str(payload))
    if tag in ("$np", "$nd"):
        return _numpy_decoded(tag, _list(payload), depth)
    if tag == "$ref" and remote is not None and type(payload) is int:
        return remote(payload)
    raise WireError(f"unknown tag {tag!r}")


# A set or dict is built by hashing: items that all hash alike (ints that are multiples of
# 2**61 - 1) make it take time in the square of their number, a minute for 100,000 of them in
# the grading process, past any limit of the sample's. No answer holds more than a few
# distinct items of one hash; more are refused before the set is built.
MAX_ALIKE = 8


def few_alike(items: list[Any]) -> list[Any]:
    """``items``, unless more than :data:`MAX_ALIKE` of them hash alike (then
    :class:`WireError`): what a set or dict can be built from in linear time."""
    seen: dict[int, int] = {}
    for item in items:
        key = hash(item)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > MAX_ALIKE:
            raise WireError(f"more than {MAX_ALIKE} items of a set or dict hash alike")
    return items


def _list(x: Any) -> list[Any]:
    if type(x) is not list:
        raise WireError("malformed value: expected a list")
    return x


def _str(x: Any) -> str:
    if type(x) is not str:
        raise WireError("malformed value: expected a string")
    return x


def decode_value(data: Any, remote: Any = None, depth: int = 0) -> Any:
    """Rebuild a value from :func:`encode` output, creating only built-in types."""
    t = type(data)
    if t in _SCALARS or t is float:
        return data
    if t is list:
        inner = _deeper(depth)
        return [decode_value(v, remote, inner) for v in data]
    if t is dict:
        try:
            return _decode_tagged(data, remote, depth)
        except WireError:
            raise
        except (TypeError, ValueError, ArithmeticError) as e:
            raise WireError(f"malformed value: {e}") from None
    raise WireError(f"unexpected {t.__name__}")


def _line_encoder() -> Any:
    # json's C encoder, made once: json.dumps would build an encoder per message, and in a
    # fresh fork every object that touches is a page to copy. No circular-reference markers:
    # encode() has already walked the value (and would have met the same recursion limit).
    from json import encoder

    plain = json.JSONEncoder(separators=(",", ":"), allow_nan=False)
    if encoder.c_make_encoder is None:
        return plain.iterencode
    return encoder.c_make_encoder(
        None, plain.default, encoder.encode_basestring_ascii, None, ":", ",", False, False, False
    )


_encode_line = _line_encoder()


def dumps(message: dict[str, Any]) -> bytes:
    """One message as a line of JSON."""
    return "".join(_encode_line(message, 0)).encode() + b"\n"


# Requests, from the trusted side to the sample, are marshal frames (a 4-byte length, then
# the data): decoding them in a fresh fork touches far fewer pages than JSON. Only ever this
# way round: marshal is not safe to load from untrusted bytes, so replies stay JSON lines.
_LENGTH = 4


def dumps_request(message: dict[str, Any]) -> bytes:
    data = marshal.dumps(message)
    return len(data).to_bytes(_LENGTH, "little") + data


def read_requests(fd: int) -> Iterator[dict[str, Any]]:
    """The requests read from ``fd`` until its end."""
    pending = bytearray()
    while chunk := os.read(fd, 1 << 16):
        pending += chunk
        while len(pending) >= _LENGTH:
            end = _LENGTH + int.from_bytes(pending[:_LENGTH], "little")
            if len(pending) < end:
                break
            yield marshal.loads(pending[_LENGTH:end])
            del pending[:end]


# Made once: json.loads would sniff the bytes' encoding and look its decoder up on every line.
_decode_line = json.JSONDecoder().decode


# Each list or object of a reply is built in the grading process: 58 MiB of empty sets
# (``{"$s":[]}``) came to ~3 GB there, past any limit of the sample's. A line holding more
# brackets than this (those inside strings counted too) is refused before it is parsed.
MAX_CONTAINERS = 1 << 20


def loads(line: bytes) -> dict[str, Any]:
    if line.count(b"[") + line.count(b"{") > MAX_CONTAINERS:
        raise WireError(f"more than {MAX_CONTAINERS} lists, sets and dicts in one reply")
    try:
        message = _decode_line(line.decode("utf-8"))
    except (ValueError, RecursionError) as e:
        raise WireError(f"not a JSON message ({type(e).__name__})") from None
    if type(message) is not dict:
        raise WireError("a message must be a JSON object")
    return message
