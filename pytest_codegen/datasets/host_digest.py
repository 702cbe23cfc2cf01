"""The sha256 a download's host announces for the file it serves, read on the way."""

from __future__ import annotations

import re
import urllib.request
from typing import Any


class HostDigest(urllib.request.HTTPRedirectHandler):
    """Follows redirects as urllib does, keeping the sha256 a response on the way announces
    for the file: Hugging Face answers a file stored in LFS with a redirect to its CDN whose
    ``X-Linked-Etag`` is the file's LFS object id (the sha256 of its bytes at that revision)."""

    def __init__(self) -> None:
        super().__init__()
        self.sha256: str | None = None

    def note(self, headers: Any) -> None:
        value = (headers.get("X-Linked-Etag") or "").strip().removeprefix("W/").strip('"')
        if self.sha256 is None and re.fullmatch(r"[0-9a-f]{64}", value):
            self.sha256 = value

    def redirect_request(  # noqa: PLR0913 - urllib's signature
        self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> Any:
        self.note(headers)
        return super().redirect_request(req, fp, code, msg, headers, newurl)
