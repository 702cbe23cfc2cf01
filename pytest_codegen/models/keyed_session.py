"""The HTTP session of a model: a ``requests.Session`` that keeps its API key to its host,
and the key kept out of what a server says back.

``requests`` drops ``Authorization`` when a redirect leads to another host (or from https to
http), but not the other headers a key travels in (Anthropic's ``x-api-key``, Gemini's
``x-goog-api-key``): a 307 from the endpoint would send them to wherever it points. A server
may also quote a key back in an error message, which becomes a sample's error everywhere it is
shown and kept.
"""

from __future__ import annotations

from typing import Any

import requests


class KeyedSession(requests.Session):
    """A session that drops every header carrying ``key`` where requests drops
    ``Authorization``."""

    def __init__(self, key: str | None) -> None:
        super().__init__()
        self.key = key

    def rebuild_auth(self, prepared_request: Any, response: Any) -> None:
        if self.key and self.should_strip_auth(response.request.url, prepared_request.url):
            headers = prepared_request.headers
            for name in [name for name, value in headers.items() if self.key in value]:
                del headers[name]
        super().rebuild_auth(prepared_request, response)


def without_key(text: str, key: str | None) -> str:
    """``text`` with ``key`` in it shown as ``***``; a key of fewer than 8 characters (a local
    server's placeholder, ``EMPTY``) is no secret worth cutting out of every message."""
    if key is None or len(key) < 8:
        return text
    return text.replace(key, "***")
