"""A provider's rate limit for the fake servers of ``fake_providers``: token buckets of
requests per second and tokens per minute, per key, answering 429 with what real providers
send when one is used up, and sending rate-limit headers with every answer.

* OpenAI: ``x-ratelimit-{limit,remaining,reset}-{requests,tokens}`` (resets as durations,
  ``"0.35s"``), and on a 429 ``retry-after-ms`` and ``Retry-After`` (whole seconds, rounded up).
* Anthropic: ``anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset}`` (resets as RFC
  3339 times), and on a 429 ``retry-after``.
* Gemini: no headers; a 429 whose body holds a ``google.rpc.RetryInfo`` with ``retryDelay``.

A request's tokens are counted when it arrives, as OpenAI counts them: the prompt (4
characters a token) and its ``max_tokens``. The buckets hold ``burst_s`` seconds' worth (a
minute's limit enforced over shorter windows, as providers do); the headers describe them.

    limit = BucketLimit(requests_per_s=20)
    with FakeProviders(limit=limit) as fake: ...
"""

from __future__ import annotations

import datetime
import math
import threading
import time
from typing import Any


class BucketLimit:
    """Token buckets shared by every request to one fake server."""

    def __init__(
        self,
        requests_per_s: float | None = None,
        tokens_per_min: float | None = None,
        *,
        burst_s: float = 1.0,
    ) -> None:
        self.rates: dict[str, float] = {}
        if requests_per_s:
            self.rates["requests"] = requests_per_s
        if tokens_per_min:
            self.rates["tokens"] = tokens_per_min / 60
        self.caps = {kind: max(1.0, rate * burst_s) for kind, rate in self.rates.items()}
        self.level = dict(self.caps)
        self._at = time.monotonic()
        self._lock = threading.Lock()
        #: (arrival, admitted) of every request, in order of arrival.
        self.log: list[tuple[float, bool]] = []
        #: (arrival, seconds it was asked to wait) of every request answered 429.
        self.announced: list[tuple[float, float]] = []

    def admit(self, api: str, body: Any, now: float) -> tuple[bool, dict[str, str], Any]:
        """Whether a request arriving ``now`` goes through; the headers of its answer, and
        the body of a 429 (None when it goes through)."""
        cost = {"requests": 1.0, "tokens": request_tokens(api, body)}
        with self._lock:
            for kind, rate in self.rates.items():
                self.level[kind] = min(self.caps[kind], self.level[kind] + rate * (now - self._at))
            self._at = now
            short = {
                kind: (min(cost[kind], self.caps[kind]) - self.level[kind]) / self.rates[kind]
                for kind in self.rates
                if self.level[kind] < min(cost[kind], self.caps[kind])
            }
            admitted = not short
            if admitted:
                for kind in self.rates:
                    self.level[kind] -= cost[kind]
            self.log.append((now, admitted))
            headers = self._headers(api, now)
        if admitted:
            return True, headers, None
        wait = max(short.values())
        with self._lock:
            self.announced.append((now, wait))
        return False, {**headers, **_retry_headers(api, wait)}, _throttled_body(api, wait)

    def _headers(self, api: str, now: float) -> dict[str, str]:
        out: dict[str, str] = {}
        for kind, rate in self.rates.items():
            left = max(0.0, self.level[kind])
            full_in = (self.caps[kind] - self.level[kind]) / rate
            limit, remaining = f"{self.caps[kind]:.0f}", f"{math.floor(left)}"
            if api == "openai":
                out[f"x-ratelimit-limit-{kind}"] = limit
                out[f"x-ratelimit-remaining-{kind}"] = remaining
                out[f"x-ratelimit-reset-{kind}"] = f"{full_in:.3f}s"
            elif api == "anthropic":
                wall = datetime.datetime.now(datetime.timezone.utc)
                reset = wall + datetime.timedelta(seconds=full_in)
                out[f"anthropic-ratelimit-{kind}-limit"] = limit
                out[f"anthropic-ratelimit-{kind}-remaining"] = remaining
                out[f"anthropic-ratelimit-{kind}-reset"] = reset.isoformat().replace("+00:00", "Z")
        return out

    def admitted_share(self) -> float:
        with self._lock:
            return sum(ok for _, ok in self.log) / len(self.log) if self.log else 1.0


def request_tokens(api: str, body: Any) -> float:
    """What a request counts against a token limit: its prompt and its ``max_tokens``."""
    if not isinstance(body, dict):
        return 0.0
    if api == "gemini":
        texts = [p.get("text", "") for c in body.get("contents", []) for p in c.get("parts", [])]
        most = (body.get("generationConfig") or {}).get("maxOutputTokens") or 0
    else:
        texts = [str(m.get("content", "")) for m in body.get("messages", [])]
        texts.append(str(body.get("system") or ""))
        most = body.get("max_tokens") or body.get("max_completion_tokens") or 0
    return sum(len(t) for t in texts) / 4 + float(most)


def _retry_headers(api: str, wait: float) -> dict[str, str]:
    if api == "openai":
        return {"retry-after-ms": f"{wait * 1000:.0f}", "Retry-After": f"{math.ceil(wait)}"}
    if api == "anthropic":
        return {"retry-after": f"{math.ceil(wait)}"}
    return {}


def _throttled_body(api: str, wait: float) -> dict[str, Any]:
    message = "Rate limit reached: too many requests"
    if api == "gemini":
        return gemini_throttled(f"{wait:.3f}s", message)
    if api == "anthropic":
        return {"type": "error", "error": {"type": "rate_limit_error", "message": message}}
    return {"error": {"message": message, "type": "requests", "code": "rate_limit_exceeded"}}


def gemini_throttled(delay: str, message: str = "Resource has been exhausted") -> dict[str, Any]:
    """Gemini's 429 body, its wait in a ``RetryInfo``."""
    return {
        "error": {
            "code": 429,
            "message": message,
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}],
        }
    }
