"""Whether a candidate's output on one input matches the canonical solution's, by EvalPlus
0.3.x's rules: equal, or close for floats (``atol``; at least 1e-6 once a float output was
met, and ``rtol`` 1e-7, as ``numpy.allclose``), and the special oracles of the tasks whose
output is not unique (HumanEval+'s ``find_zero``, a handful of MBPP+ tasks).

Both values are plain data decoded from the sandbox's replies (see :mod:`.wire`): comparing
them runs none of the sample's code.
"""

from __future__ import annotations

import math
from typing import Any

DEFAULT_FLOAT_ATOL = 1e-6
RTOL = 1e-7

# MBPP+ tasks, by entry point, whose outputs are compared as sets.
MBPP_SET_EQUAL = frozenset(
    {
        "similar_elements",
        "find_char_long",
        "common_in_nested_lists",
        "extract_singly",
        "larg_nnum",
        "intersection_array",
        "find_dissimilar",
        "Diff",
    }
)
# MBPP+ tasks whose output (a regex match object) is only checked for being None or not: their
# expected outputs are the canonical solution's ``is not None``.
MBPP_NOT_NONE = frozenset({"check_str", "text_match_three", "text_starta_endb"})


def is_floats(value: Any) -> bool:
    """A float, or a non-empty list or tuple of floats only."""
    if isinstance(value, float):
        return True
    return (
        isinstance(value, (list, tuple))
        and bool(value)
        and all(isinstance(v, float) for v in value)
    )


def matches(
    dataset: str,
    entry_point: str,
    args: list[Any],
    out: Any,
    expected: Any,
    atol: float,
    subclass: bool = False,
) -> tuple[bool, float]:
    """``(whether out is right, the atol for the inputs after this one)``. ``subclass``: the
    candidate returned an object of a subclass of ``out``'s type (it crossed as ``out``),
    which only an exact match passes, as EvalPlus first checks the types are the same.

    The tolerance carries over: as in EvalPlus, a problem whose atol is 0 compares with 1e-6
    from its first float output on, for the rest of that run of inputs."""
    try:
        exact = out == expected
        if dataset == "mbpp":
            exact = _mbpp_oracle(entry_point, args, out, expected, exact, atol)
        elif entry_point == "find_zero":  # any root will do
            return abs(_poly(*args, out)) <= atol, atol
        if atol == 0 and is_floats(expected):
            atol = DEFAULT_FLOAT_ATOL
        if exact or atol == 0 or subclass:
            return bool(exact), atol
        return _allclose(out, expected, atol), atol
    except Exception:  # noqa: BLE001 - an output the rules cannot even compare is wrong
        return False, atol


def _mbpp_oracle(
    entry_point: str, args: list[Any], out: Any, expected: Any, exact: Any, atol: float
) -> Any:
    if entry_point == "are_equivalent":  # Mbpp/164: the expected output is disputed
        return True
    if entry_point == "sum_div":  # Mbpp/295
        return exact or out == 0
    if entry_point == "surface_Area":  # Mbpp/581: the height read as the slant height
        return exact or abs(out - _surface_area(*args)) <= atol
    if entry_point == "digit_distance_nums":  # Mbpp/558: numbers of different lengths
        return exact or out == _digit_distance(*args)
    if entry_point in MBPP_SET_EQUAL:
        return _same_set(out, expected)
    if entry_point in MBPP_NOT_NONE:
        return out == expected if isinstance(out, bool) else expected == (out is not None)
    return exact


def _same_set(out: Any, expected: Any) -> bool:
    """``set(out) == set(expected)``, repeated items and all, without building a set of the
    sample's items before each is known to be one of the canonical solution's: a set of many
    distinct items that hash alike would take time in the square of their number."""
    want = set(expected)
    items = list(out)
    return all(item in want for item in items) and set(items) == want


def _allclose(out: Any, expected: Any, atol: float) -> bool:
    import numpy

    if type(out) is not type(expected):
        return False
    if isinstance(expected, (list, tuple)) and len(out) != len(expected):
        return False
    return bool(numpy.allclose(out, expected, rtol=RTOL, atol=atol))


def _poly(coefficients: list[float], x: float) -> float:
    return sum(c * math.pow(x, i) for i, c in enumerate(coefficients))


def _surface_area(base_edge: float, height: float) -> int:
    """A square pyramid's surface, ``height`` being its perpendicular height."""
    slant = math.sqrt((base_edge / 2) ** 2 + height**2)
    return round(base_edge**2 + 4 * (base_edge * slant) / 2)  # EvalPlus's order of operations


def _digit_distance(a: int, b: int) -> int:
    """Sum of the per-digit differences, the shorter number padded with leading zeros."""
    left, right = str(a), str(b)
    width = max(len(left), len(right))
    return sum(
        abs(int(x) - int(y)) for x, y in zip(left.zfill(width), right.zfill(width), strict=True)
    )
