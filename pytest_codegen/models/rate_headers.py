"""What a provider's rate-limit headers say is left of the key's limits.

OpenAI (and the servers that copy it) send ``x-ratelimit-{limit,remaining,reset}-{requests,
tokens}`` with each answer, the reset as a duration (``"1s"``, ``"6m0s"``, ``"20ms"``): the
time until the limit is whole again. Anthropic sends ``anthropic-ratelimit-{requests,tokens}-
{limit,remaining,reset}`` (and ``-input-tokens-``/``-output-tokens-``), the reset as an RFC
3339 time. Gemini sends none: its 429 carries a ``retryDelay`` in the body instead
(:func:`~pytest_codegen.models.failures.body_retry_delay`).

The generation budget (:mod:`pytest_codegen.generation.congestion`) reads these to hold back
requests before the provider answers 429, and, on a 429 with neither ``Retry-After`` nor a
``retryDelay``, waits for the reset of the limit that is used up.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
import time
from collections.abc import Mapping
from typing import Any

_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?)(ms|h|m|s)")
_UNIT_S = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


@dataclasses.dataclass(frozen=True)
class LimitLeft:
    """One limit of the key (requests, or tokens) as an answer saw it."""

    remaining: float
    limit: float | None = None
    reset_s: float | None = None  # seconds until it is whole again

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class RateHeaders:
    """The request and token limits an answer reports; None where it reports none."""

    requests: LimitLeft | None = None
    tokens: LimitLeft | None = None

    def reset_wait(self) -> float | None:
        """Seconds until the used-up limit (nothing remaining) is whole again."""
        waits = [
            left.reset_s
            for left in (self.requests, self.tokens)
            if left is not None and left.remaining < 1 and left.reset_s is not None
        ]
        return max(waits) if waits else None


def parse_duration(value: str) -> float | None:
    """``"1s"``, ``"6m0s"``, ``"20ms"``, ``"1h2m3.5s"`` or plain seconds, in seconds."""
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(number) * _UNIT_S[unit] for number, unit in parts)


def parse_reset(value: str, now: float | None = None) -> float | None:
    """A reset as a duration or as an RFC 3339 time, in seconds from ``now``."""
    duration = parse_duration(value)
    if duration is not None:
        return duration
    try:
        when = datetime.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _number(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if number >= 0 else None


def _limit(
    headers: Mapping[str, str], names: tuple[str, str, str], now: float | None
) -> LimitLeft | None:
    limit, remaining, reset = (headers.get(name) for name in names)
    left = _number(remaining)
    if left is None:
        return None
    reset_s = parse_reset(reset, now) if reset else None
    return LimitLeft(left, _number(limit), reset_s)


def _tightest(*limits: LimitLeft | None) -> LimitLeft | None:
    """Of limits on the same thing (Anthropic's tokens, input and output), the one with the
    least left."""
    known = [left for left in limits if left is not None]
    return min(known, key=lambda left: left.remaining) if known else None


def parse_rate_headers(headers: Mapping[str, str], sent: float | None = None) -> RateHeaders | None:
    """The limits ``headers`` (case-insensitive, as ``requests`` gives them) report, their
    resets in seconds from ``sent`` (the wall time the request went; now when None): a
    provider counts a request when it arrives, and says when its limit is whole from then."""
    requests_left = _tightest(
        _limit(headers, _openai("requests"), sent), _limit(headers, _anthropic("requests"), sent)
    )
    tokens_left = _tightest(
        _limit(headers, _openai("tokens"), sent),
        *(
            _limit(headers, _anthropic(kind), sent)
            for kind in ("tokens", "input-tokens", "output-tokens")
        ),
    )
    if requests_left is None and tokens_left is None:
        return None
    return RateHeaders(requests_left, tokens_left)


def _openai(what: str) -> tuple[str, str, str]:
    return tuple(f"x-ratelimit-{part}-{what}" for part in ("limit", "remaining", "reset"))  # type: ignore[return-value]


def _anthropic(what: str) -> tuple[str, str, str]:
    return tuple(f"anthropic-ratelimit-{what}-{part}" for part in ("limit", "remaining", "reset"))  # type: ignore[return-value]
