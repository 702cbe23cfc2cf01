"""Calls of a candidate foreseen before it is loaded (see :meth:`.sandbox.Sandbox.load`): sent
with the code, answered in one reply, each taken by the call of the tests that it foresaw."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Any

from . import wire

Given = tuple[tuple[Any, ...], dict[str, Any]]  # a call's arguments, as the grader gave them
# A planned call whose reply is on its way: (target, encoded arguments, the arguments given).
PlannedCall = tuple[int, str, Given]


@dataclasses.dataclass(frozen=True)
class Plan:
    """The calls, encoded once: a problem's plan serves every one of its samples."""

    calls: tuple[list[Any], ...] = ()  # [args, kwargs] each, as wire data
    keys: tuple[str, ...] = ()  # what a call must encode to, to be the planned one
    # The arguments as given: a call with these very objects is the planned one, without
    # encoding them again (the grader never changes a problem's inputs).
    given: tuple[Given, ...] = ()

    @classmethod
    def of(cls, calls: Iterable[tuple[list[Any], dict[str, Any]]]) -> Plan:
        given = tuple((tuple(args), dict(kwargs)) for args, kwargs in calls)
        encoded = tuple([wire.encode(list(args)), wire.encode(kwargs)] for args, kwargs in given)
        return cls(encoded, tuple(arguments_key(*call) for call in encoded), given)


NO_PLAN = Plan()


def same_objects(args: list[Any], kwargs: dict[str, Any], given: Given) -> bool:
    """Whether a call passes the very objects a plan was made of (then it encodes alike)."""
    given_args, given_kwargs = given
    return (
        len(args) == len(given_args)
        and all(a is b for a, b in zip(args, given_args, strict=True))
        and kwargs.keys() == given_kwargs.keys()
        and all(kwargs[name] is given_kwargs[name] for name in kwargs)
    )


def arguments_key(args: Any, kwargs: Any) -> str:
    """A call's encoded arguments as JSON text: 1, 1.0 and True are different calls, though
    equal as Python values."""
    return json.dumps([args, kwargs], separators=(",", ":"))
