"""Server-sent events: the streamed replies of the OpenAI, Anthropic and Gemini APIs.

A streamed reply keeps bytes flowing while the model writes, so a long generation never
waits on one read (the read timeout bounds the gap between chunks, and between two pieces of
progress however many keep-alives come meanwhile, not the whole reply) and is never cut off
and requested (and billed) again. Each wire format folds its events back into
the shape of its non-streamed reply, so one parser serves both.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from .reply_size import TooLarge


class StreamError(Exception):
    """A stream that failed part-way: an error event, or an end before the reply was done.

    ``retryable`` errors (overloaded, cut off) are requested again; others are final.
    """

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


def events(lines: Iterable[bytes | str], most: int | None = None) -> Iterator[tuple[str, str]]:
    """``(event, data)`` pairs from the lines of an event stream (the SSE format: ``event:``
    and ``data:`` fields, a blank line ends an event, ``:`` lines are comments); an event's
    data of more than ``most`` characters raises :class:`TooLarge`."""
    event, data, size = "message", [], 0
    for raw in lines:
        # Decoded as the SSE format says, bytes that are not UTF-8 as U+FFFD (as requests
        # decodes a reply that is not streamed).
        line = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        line = line.rstrip("\r")
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data, size = "message", [], 0
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            event = value
        elif field == "data":
            data.append(value)
            size += len(value) + 1
            if most is not None and size > most:
                raise TooLarge(most, " in one event of its stream")
    if data:
        yield event, "\n".join(data)


def json_events(lines: Iterable[bytes | str], most: int | None = None) -> Iterator[tuple[str, Any]]:
    """:func:`events` with each ``data`` parsed as JSON; OpenAI's ``[DONE]`` comes as
    ``("done", None)``."""
    for event, data in events(lines, most):
        if data.strip() == "[DONE]":
            yield "done", None
            continue
        try:
            yield event, json.loads(data)
        except ValueError:
            raise StreamError(f"malformed event in stream: {data[:80]!r}") from None


def error_in(chunk: Any) -> StreamError | None:
    """The error a chunk reports in place of data (``{"error": {...}}``), if it does.

    Overloaded and server errors are retryable; anything else (a refused request) is not.
    """
    error = chunk.get("error") if isinstance(chunk, dict) else None
    if error is None:
        return None
    code: Any = None
    if isinstance(error, dict):
        message = error.get("message") or error.get("type") or json.dumps(error)
        kind = str(error.get("type") or error.get("status") or "").lower()
        code = error.get("code")
    else:
        message, kind = str(error), ""
    retryable = (isinstance(code, int) and (code == 429 or code >= 500)) or any(
        word in kind
        for word in ("overloaded", "api_error", "server", "unavailable", "internal", "rate")
    )
    return StreamError(f"error in stream: {message}", retryable=retryable)
