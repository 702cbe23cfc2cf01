"""Handles on a sample's objects, and the replies of its process turned into values.

What the trusted side holds of an object the sample's process keeps (one that is not plain
data, see :mod:`.wire`) is a :class:`Remote`; :func:`result_of` reads a reply: its value, or
what the candidate raised.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from . import wire
from .errors import SampleCrashed, candidate_exception


class Box(Protocol):
    """What a handle asks of the sandbox its object lives in (:class:`.sandbox.Sandbox`)."""

    def call(self, target: int, args: list[Any], kwargs: dict[str, Any]) -> Any: ...

    def request(self, message: dict[str, Any]) -> dict[str, Any]: ...

    def end_plan(self) -> None: ...

    def failed(self, exc: BaseException) -> BaseException: ...


class Remote:
    """A handle on an object living in the sandbox: calls, attribute reads, truth, length and
    iteration are forwarded (the sandbox answers each with plain data or another handle).

    Nothing else is: comparing, hashing or printing a handle never runs the sample's code.
    A handle equals nothing but itself, so an object that claims to equal the expected value
    cannot pass; its truth is the object's own, as it is to the benchmark's tests (``assert
    candidate(x)`` of a ``range(0)`` fails as it does there).
    """

    __slots__ = ("_box", "_id", "_name")

    def __init__(self, box: Box, ident: int) -> None:
        object.__setattr__(self, "_box", box)
        object.__setattr__(self, "_id", ident)
        object.__setattr__(self, "_name", f"<sandboxed object #{ident}>")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._box.call(self._id, list(args), kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return call_remote(self._box, {"op": "getattr", "target": self._id, "name": name})

    def __bool__(self) -> bool:
        return self._ask("bool", bool)

    def __len__(self) -> int:
        return self._ask("len", int)

    def __iter__(self) -> Iterator[Any]:
        # The items at once, as tuple() or a for loop over the object would take them there.
        return iter(self._ask("iter", list))

    def _ask(self, op: str, answer_type: type) -> Any:
        value = call_remote(self._box, {"op": op, "target": self._id})
        if type(value) is not answer_type:  # what bool(), len() and list() give there
            why = f"returned malformed data: {op} gave {type(value).__name__}"
            raise self._box.failed(SampleCrashed(why))
        return value

    def __repr__(self) -> str:
        return self._name


def call_remote(box: Box, message: dict[str, Any]) -> Any:
    """Send one request and turn the reply into a value, or raise what the candidate raised."""
    return result_of(box, box.request(message))


def result_of(box: Box, reply: dict[str, Any], planned: bool = False) -> Any:
    """The value in ``reply``, or raise what the candidate raised. A planned reply that
    raises or hands out an object is the last of its plan (the sample stops there too). A
    reply that is no answer is the sample's crash, kept by ``box`` even if the tests catch it
    (a bare ``except:`` around a call that must raise)."""
    if "ok" in reply:
        handles: list[Remote] = []

        def remote(ident: int) -> Remote:
            handles.append(Remote(box, ident))
            return handles[-1]

        try:
            value = wire.decode_value(reply["ok"], remote)
        except wire.WireError as e:
            raise box.failed(SampleCrashed(f"returned malformed data: {e}")) from None
        if planned and handles:
            box.end_plan()
        return value
    if planned:
        box.end_plan()
    if "raise" in reply:
        exc = candidate_exception(reply["raise"])
        raise box.failed(exc) if isinstance(exc, SampleCrashed) else exc
    raise box.failed(SampleCrashed(f"unexpected reply {sorted(reply)[:3]}"))
