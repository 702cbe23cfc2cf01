from __future__ import annotations

import datetime
import decimal
import json
from collections import OrderedDict, namedtuple

import numpy
import pytest

from pytest_codegen.execution.python import wire

VALUES = [
    None,
    True,
    0,
    -(10**30),
    1.5,
    float("inf"),
    "x",
    b"\x00\xff",
    [1, [2]],
    (1, (2,)),
    {1: "a", (2, 3): frozenset({4})},
    {1, 2},
    complex(1, 2),
    datetime.date(2024, 2, 29),
    datetime.datetime(2024, 1, 1, 12, 30),
    datetime.time(8, 15),
    datetime.timedelta(days=-1),
    decimal.Decimal("1.10"),
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_round_trip_keeps_type_and_value(value):
    back = wire.decode_value(json.loads(json.dumps(wire.encode(value))))
    assert back == value and type(back) is type(value)


def test_subclasses_cross_as_their_plain_base():
    class Liar(str):
        def __eq__(self, other):
            return True

        __hash__ = str.__hash__

    Point = namedtuple("Point", "x y")
    back = wire.decode_value(wire.encode(Liar("a")))
    # `==`, not `!=`: a Liar inherits str's `!=`, which would say True whatever crossed.
    assert type(back) is str and back == "a"
    assert (back == "b") is False
    assert type(wire.decode_value(wire.encode(Point(1, 2)))) is tuple
    assert type(wire.decode_value(wire.encode(OrderedDict(a=1)))) is dict


def test_subclasses_cross_as_what_they_hold_whatever_their_methods_show():
    class Shown(list):
        def __iter__(self):
            return iter([9])

    class ShownTuple(tuple):
        def __iter__(self):
            return iter([9])

        def __getitem__(self, index):
            return 9

    class ShownDict(dict):
        def keys(self):
            return ["z"]

        def __iter__(self):
            return iter(["z"])

        def __getitem__(self, key):
            return 9

    class ShownBytes(bytes):
        def __bytes__(self):
            return b"z"

    class ShownOrder(OrderedDict):
        def keys(self):
            return ["z"]

    ordered = ShownOrder(a=1, b=2)
    ordered.move_to_end("a")
    for value, held in [
        (Shown([1, 2]), [1, 2]),
        (ShownTuple((1, 2)), (1, 2)),
        (ShownDict(a=1), {"a": 1}),
        (ShownBytes(b"ab"), b"ab"),
        (ordered, {"b": 2, "a": 1}),
    ]:
        back = wire.decode_value(json.loads(json.dumps(wire.encode(value))))
        assert type(back) is type(held) and back == held
    assert list(wire.decode_value(wire.encode(ordered))) == ["b", "a"]  # its own order


def test_an_object_that_claims_a_plain_class_stays_behind_a_reference():
    class Claims:
        __class__ = property(lambda self: list)

        def __iter__(self):
            return iter([1, 2])

    assert isinstance(Claims(), list)  # what isinstance believes
    assert wire.encode(Claims(), lambda obj: 7) == {"$ref": 7}


NUMPY_VALUES = [
    numpy.int64(5),
    numpy.uint8(200),
    numpy.bool_(True),
    numpy.float32(0.1),
    numpy.float64(0.30000000000000004),
    numpy.float16(1.5),
    numpy.complex64(1 + 2j),
    numpy.array([[1, 2], [3, 4]]),
    numpy.array([numpy.nan, -numpy.inf]),
    numpy.zeros((0, 3)),
    numpy.array(5),
    numpy.array([True, False]),
]


@pytest.mark.parametrize("value", NUMPY_VALUES, ids=repr)
def test_numpy_numbers_and_arrays_cross_as_themselves(value):
    # So that `candidate(x) == 3` of an int64, `is True` of a numpy.bool_ and an array's
    # ambiguous truth are what they are under the benchmark's own grader.
    back = wire.decode_value(json.loads(json.dumps(wire.encode(value))))
    assert type(back) is type(value) and back.dtype == value.dtype
    assert numpy.shape(back) == numpy.shape(value)
    assert numpy.array_equal(back, value, equal_nan=True)


def test_numpy_values_of_other_kinds_stay_behind_a_reference():
    for value in (numpy.array(["a"]), numpy.array([1], dtype=object), numpy.datetime64(0, "s")):
        assert wire.encode(value, ref=lambda o: 7) == {"$ref": 7}
    assert wire.encode(numpy.str_("x")) == "x"  # a str subclass, as any other


def test_objects_become_references_or_are_refused():
    obj = object()
    assert wire.encode([obj], ref=lambda o: 7) == [{"$ref": 7}]
    with pytest.raises(wire.WireError):
        wire.encode(obj)


@pytest.mark.parametrize(
    "data",
    [
        {"$nope": 1},
        {"$t": 1},
        {"$d": [[[1], 2]]},
        {"$f": "1e999"},
        {"$a": 1, "$b": 2},
        {"$ref": 1},
        {"$np": ["<i8", [1, 2]]},
        {"$np": ["|O", 1]},
        {"$np": ["|i1", 300]},
        {"$np": ["<i8", {"$t": [1]}]},
        {"$nd": ["<i8", [3], [1, 2]]},
        {"$nd": ["<i8", [-1], []]},
        {"$nd": ["<i8", [2], [[1], [2, 3]]]},
    ],
)
def test_malformed_data_is_rejected(data):
    with pytest.raises(wire.WireError):
        wire.decode_value(data)


# Distinct ints of one hash: a set or dict of n of them takes time in n squared to build.
ALIKE = [k * (2**61 - 1) for k in range(wire.MAX_ALIKE + 1)]


@pytest.mark.parametrize(
    "data",
    [{"$s": ALIKE}, {"$fs": ALIKE}, {"$d": [[k, 0] for k in ALIKE]}, {"$s": [1] * 9}],
    ids=["set", "frozenset", "dict", "repeated"],
)
def test_sets_and_dicts_of_items_that_hash_alike_are_rejected(data):
    # A reply of 100,000 of them held the grading process a minute, its sample's limit 3 s.
    with pytest.raises(wire.WireError, match="hash alike"):
        wire.decode_value(data)
    fewer = {tag: items[: wire.MAX_ALIKE] for tag, items in data.items()}
    assert len(wire.decode_value(fewer)) == (1 if data == {"$s": [1] * 9} else wire.MAX_ALIKE)


def test_mbpp_set_oracle_builds_no_set_of_items_that_hash_alike():
    from pytest_codegen.execution.python.evalplus_match import matches

    assert matches("mbpp", "Diff", [], [3, 1], [1, 3], 0) == (True, 0)
    # Repeated items are one item of the set, as there.
    assert matches("mbpp", "Diff", [], [3] * 100 + [1], [1, 3], 0) == (True, 0)
    # 100,000 distinct ints of one hash: judged without building a set of them.
    many = [k * (2**61 - 1) for k in range(100_000)]
    assert matches("mbpp", "Diff", [], many, [0], 0) == (False, 0)
    assert matches("mbpp", "Diff", [], [0] * 100_000, many[:1], 0) == (True, 0)


def test_deeply_nested_message_is_rejected():
    with pytest.raises(wire.WireError):
        wire.loads(b"[" * 100_000 + b"]" * 100_000)


def nested(wrap, depth: int, value=0):
    for _ in range(depth):
        value = wrap(value)
    return value


NESTINGS = {
    "list": lambda v: [v],
    "tuple": lambda v: (v,),
    "dict value": lambda v: {1: v},
    "frozenset": lambda v: frozenset([v]),
}


def under_frames(frames: int, work):
    """``work()`` called under ``frames`` more frames: as deep as a grading process's stack
    is when a test reads an answer (pytest, xdist, the tests' own helpers)."""
    return work() if frames == 0 else under_frames(frames - 1, work)


@pytest.mark.parametrize("wrap", NESTINGS.values(), ids=NESTINGS.keys())
def test_answers_nested_to_the_limit_cross_and_deeper_ones_are_refused(wrap):
    """An answer nested up to MAX_DEPTH is written and read back whole, by a grading process
    deep in its own frames; one nested deeper is refused as not plain data, both where it
    is written and where a forged reply carrying it is read, never a RecursionError."""
    deepest = nested(wrap, wire.MAX_DEPTH)
    line = under_frames(200, lambda: wire.dumps({"ok": wire.encode(deepest)}))
    assert under_frames(250, lambda: wire.decode_value(wire.loads(line)["ok"])) == deepest
    with pytest.raises(wire.WireError, match="nested more than 200 deep"):
        wire.encode([deepest])
    forged = b'{"ok":[' + line[len(b'{"ok":') : -2] + b"]}"
    with pytest.raises(wire.WireError, match="nested more than 200 deep"):
        under_frames(250, lambda: wire.decode_value(wire.loads(forged)["ok"]))


def test_a_numpy_array_counts_its_dimensions_as_nesting():
    array = numpy.zeros((1,) * 16)
    deepest = nested(lambda v: [v], wire.MAX_DEPTH - 16, array)
    assert wire.decode_value(wire.encode(deepest)) == deepest
    with pytest.raises(wire.WireError, match="nested more than 200 deep"):
        wire.encode([deepest])


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_reply_lines_are_the_json_of_the_message(value):
    message = {"ok": wire.encode(value), "note": "é\u2028\n"}
    line = wire.dumps(message)
    assert line == json.dumps(message, separators=(",", ":")).encode() + b"\n"
    assert wire.decode_value(wire.loads(line)["ok"]) == value


@pytest.mark.parametrize("digits", [3000, 4301, 50_000])
def test_ints_longer_than_python_writes_in_decimal_cross_whole(digits):
    for value in (10**digits - 1, 1 - 10**digits, [(10**digits,)]):
        line = wire.dumps({"ok": wire.encode(value)})
        assert wire.decode_value(wire.loads(line)["ok"]) == value


@pytest.mark.parametrize("bad", [float("nan"), object()], ids=["nan", "object"])
def test_reply_lines_refuse_what_json_cannot_say(bad):
    with pytest.raises((ValueError, TypeError)):
        wire.dumps({"ok": bad})


def test_requests_arrive_whole_however_the_pipe_splits_them():
    import os
    import threading

    messages = [
        {"op": "call", "args": ["x" * 300_000]},
        {"op": "load", "then": [[[1], {}]]},
        {"op": "getattr", "name": ""},
    ]
    data = b"".join(wire.dumps_request(m) for m in messages)
    r, w = os.pipe()

    def write_in_odd_pieces() -> None:
        for i in range(0, len(data), 7777):
            os.write(w, data[i : i + 7777])
        os.close(w)

    writer = threading.Thread(target=write_in_odd_pieces)
    writer.start()
    try:
        assert list(wire.read_requests(r)) == messages
    finally:
        writer.join()
        os.close(r)


def test_a_reply_of_too_many_containers_is_refused_before_it_is_built():
    # ~1.3 GB of empty sets when built: refused by counting brackets, the line never parsed.
    many = b'{"ok": [' + b",".join([b'{"$s": []}'] * (wire.MAX_CONTAINERS // 2)) + b"]}"
    with pytest.raises(wire.WireError, match="lists, sets and dicts in one reply"):
        wire.loads(many)
    fewer = b'{"ok": [' + b",".join([b'{"$s": []}'] * 1000) + b"]}"
    assert wire.decode_value(wire.loads(fewer)["ok"], None) == [set()] * 1000


def test_ints_past_the_digit_limit_cross_whole():
    # JSON writes ints in decimal, which str() refuses from 4300 digits on.
    for value in (7**6000, -(7**6000), 1 << 13_000, -(1 << 13_000), (1 << 13_000) - 1):
        line = wire.dumps({"ok": wire.encode(value)})
        back = wire.decode_value(wire.loads(line)["ok"])
        assert type(back) is int and back == value
