"""The HTTP session of a model: a ``requests.Session`` that keeps its API key to its host.

``requests`` drops ``Authorization`` when a redirect leads to another host (or from https to
http), but not the other headers a key travels in (Anthropic's ``x-api-key``, Gemini's
``x-goog-api-key``): a 307 from the endpoint would send them to wherever it points.
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
