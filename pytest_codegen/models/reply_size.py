"""The bound on what one reply of a model server may bring into the process.

A broken server or proxy may send without end: a body of gigabytes, a stream that never ends,
one enormous line. Its reply is read while it is counted and given up once past the bound
(an ``api_error`` of that sample, not retried: a server that did it once does it again), so
memory stays bounded and the samples the process holds are not lost with it. A stream that
goes on without progress (keep-alives alone) is bounded in time instead: :class:`StreamText`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

import requests

MIB = 1 << 20

#: The most bytes one reply may bring: the body of one not streamed (error bodies too), one
#: line or event of a stream, and the text a stream's events add up to (their envelopes are
#: read and dropped, some hundred bytes per token, so a stream itself may be far longer).
#: A real reply is at most a few MiB: 128 completions of 32k tokens are some 16 MiB of text.
MOST_REPLY_BYTES = 64 * MIB

_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
_T = TypeVar("_T")


class TooLarge(Exception):
    """A reply past its bound; ``str()`` says which bound (``64 MiB in one line ...``)."""

    def __init__(self, most: int, where: str = "") -> None:
        super().__init__(f"{most / MIB:g} MiB{where}")


def read_body(response: requests.Response, most: int) -> None:
    """Read the whole body of ``response`` (``.content``, ``.text`` and ``.json()`` then give
    it), raising :class:`TooLarge` as soon as more than ``most`` bytes of it came."""
    body = bytearray()
    for chunk in response.iter_content(requests.models.CONTENT_CHUNK_SIZE):
        body += chunk
        if len(body) > most:
            response.close()  # the rest is not read: the connection is not used again
            raise TooLarge(most)
    response._content = bytes(body)  # what requests itself keeps once it read a body


def lines(chunks: Iterable[bytes], most: int) -> Iterator[bytes]:
    """The lines of a stream read in ``chunks`` (ended by CRLF, LF or CR, as requests'
    ``iter_lines`` splits them), raising :class:`TooLarge` once one passes ``most`` bytes."""
    line = bytearray()
    after_cr = False  # a CR ended the last chunk: a LF first in this one ends no other line
    for chunk in chunks:
        if not chunk:
            continue
        if after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        after_cr = chunk.endswith(b"\r")
        for k, part in enumerate(_LINE_BREAK.split(chunk)):  # only the new bytes are searched
            if k:
                yield bytes(line)
                line = bytearray()
            line += part
            if len(line) > most:
                raise TooLarge(most, " in one line of its stream")
    if line:
        yield bytes(line)


#: The most parts one stream may open (choices, content blocks, candidates: each a new
#: ``index``) and the most usage fields it may name: far above any ``n`` a request asks for,
#: while a stream of ever-new indices (a broken server) would otherwise grow without bound.
MOST_STREAM_PARTS = 1024


def new_part(parts: dict[Any, Any], index: Any, what: str) -> Any:
    """``index``, checked to be one ``parts`` holds or one more it may hold: a stream past
    :data:`MOST_STREAM_PARTS` is malformed (``ValueError``)."""
    if index not in parts and len(parts) >= MOST_STREAM_PARTS:
        raise ValueError(f"a stream of more than {MOST_STREAM_PARTS} {what}")
    return index


#: What may follow the end of a stream's reply for its connection to be used again: the end
#: of its chunked body is some bytes, sent with the last event. A stream that goes on, or ends
#: later, is not read further: its connection is closed, the reply kept.
MOST_AFTER_END, AFTER_END_S = 64 << 10, 1.0


class KeepAlivesOnly(Exception):
    """A stream that went on without progress for its idle bound (see :class:`StreamText`)."""


class StreamText:
    """The body of a streamed ``response`` (:attr:`chunks`); counts the characters of text its
    events add to the reply (call it on each piece kept), and times its progress.

    Progress is what the fold keeps that it did not have: a piece of text (reasoning and
    refusals too), or (:meth:`kept`) a finish reason, usage, a new content block, a tool call.
    The rest is a keep-alive: SSE comments, Anthropic's ``ping``, a chunk of empty deltas or
    of usage already had. A stream of nothing else for ``idle_s`` (the request timeout) is
    timed out as a silent one is: reading :attr:`chunks` raises :class:`KeepAlivesOnly`.
    """

    def __init__(self, response: requests.Response, most: int, idle_s: float) -> None:
        self.response = response
        self.most = most
        self.size = 0
        self.idle_s = idle_s
        self.progress_at = time.monotonic()
        self.chunks = self._paced(response.iter_content(requests.models.ITER_CHUNK_SIZE))

    def __call__(self, piece: Any) -> str:
        """``piece``, which must be text: anything else makes the reply malformed at once,
        as adding it to the text did when pieces were added as they came."""
        if not isinstance(piece, str):
            raise TypeError(f"a piece of streamed text is {type(piece).__name__}")
        self.size += len(piece)
        if self.size > self.most:
            raise TooLarge(self.most, " of streamed text")
        return self.kept(piece)

    def kept(self, value: _T, before: Any = None) -> _T:
        """``value``, which the fold keeps in place of ``before``: progress if it is
        something (not empty) and not ``before``."""
        if value and value != before:
            self.progress_at = time.monotonic()
        return value

    def _paced(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """``chunks``, each judged once the events it completed were folded: one after which
        the stream has gone ``idle_s`` without progress raises :class:`KeepAlivesOnly`."""
        for chunk in chunks:
            yield chunk
            if time.monotonic() - self.progress_at > self.idle_s:
                raise KeepAlivesOnly(f"only keep-alives streamed for {self.idle_s:g}s")

    def read_rest(self) -> None:
        """Read what follows the end of the reply, the end of the body, so that the response's
        connection goes back to the pool for the next request (a response closed unread
        closes it): at most :data:`MOST_AFTER_END` bytes, each read within
        :data:`AFTER_END_S` and all of them too."""
        sock = getattr(getattr(self.response.raw, "connection", None), "sock", None)
        end, size = time.monotonic() + AFTER_END_S, 0
        try:
            if sock is not None:  # the next request on the connection sets its own timeout
                sock.settimeout(AFTER_END_S)
            for chunk in self.chunks:
                size += len(chunk)
                if size > MOST_AFTER_END or time.monotonic() > end:
                    return
        except (requests.RequestException, OSError, KeepAlivesOnly):
            return  # a stream cut off after its end: the reply is whole all the same
