"""What a provider's error answer means: how long it asks us to wait, whether it is a quota
or spend limit (never worth retrying), and which request parameter it refuses.

The waits come from the ``retry-after-ms`` and ``Retry-After`` headers (OpenAI, Anthropic)
and from Gemini's body (``error.details[]`` of type ``google.rpc.RetryInfo``, with a
``retryDelay`` such as ``"22s"``).
"""

from __future__ import annotations

import email.utils
import json
import random
import re
import time
from collections.abc import Mapping
from typing import Any

# Error codes and types of exhausted credit or spend limits: retrying cannot succeed.
_QUOTA_CODES = frozenset(
    {
        "insufficient_quota",  # OpenAI
        "billing_hard_limit_reached",
        "billing_not_active",
        "billing_error",  # Anthropic, HTTP 402
        "enforced_spend_limit_reached",
        "spend_limit_reached",
        "insufficient_balance",  # DeepSeek
        "insufficient_credits",
    }
)
# Anthropic reports a workspace spend limit as a 429 whose message says so.
_QUOTA_WORDS = re.compile(
    r"spend(?:ing)? limit|usage limits?|credit balance|insufficient (?:balance|credits)", re.I
)
# A 400 about the prompt's length names max_tokens too; it is about this prompt, not a rule.
_PROMPT_SPECIFIC = re.compile(r"context|input length|prompt is too long|too many tokens", re.I)

#: The wire names of each sampling parameter, in every format; ``n`` is the sample count.
WIRE_NAMES: dict[str, tuple[str, ...]] = {
    "temperature": ("temperature",),
    "top_p": ("top_p", "topP"),
    "top_k": ("top_k", "topK"),
    "max_tokens": ("max_tokens", "max_completion_tokens", "maxOutputTokens"),
    "presence_penalty": ("presence_penalty", "presencePenalty"),
    "frequency_penalty": ("frequency_penalty", "frequencyPenalty"),
    "seed": ("seed", "random_seed"),
    "n": ("n", "candidateCount", "candidate_count"),
}
_MULTIPLE = re.compile(r"multiple candidates|candidate_?count|\bn\b must be 1|only n ?= ?1", re.I)


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff(attempt: int, asked: float | None, base_s: float, cap_s: float) -> float:
    """Seconds to wait before another attempt: what the server ``asked`` for, else an
    exponential backoff from ``base_s`` up to ``cap_s``, both with jitter. A wait of 0 (a
    ``Retry-After: 0``, a date already past) asks for none: answered at once every time, a
    rate limit would be retried without end (its attempts count no wait)."""
    if asked:
        # The server's word, plus a little jitter so waiting threads do not stampede.
        return asked + random.uniform(0, 0.1 * asked)
    cap = min(cap_s, base_s * 2 ** (attempt - 1))
    return cap / 2 + random.uniform(0, cap / 2)


def body_retry_delay(data: Any) -> float | None:
    """Gemini's ``RetryInfo.retryDelay`` (``"22s"``, ``"1.5s"``) in an error body, in seconds."""
    error = data.get("error") if isinstance(data, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    if not isinstance(details, list):
        return None
    for detail in details:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            delay = detail.get("retryDelay")
            if isinstance(delay, dict):  # the proto form {"seconds": 22, "nanos": 0}
                return float(delay.get("seconds", 0)) + float(delay.get("nanos", 0)) / 1e9
            match = re.fullmatch(r"\s*(\d+(?:\.\d*)?)s\s*", str(delay))
            if match:
                return float(match.group(1))
    return None


def is_quota_error(status: int, data: Any) -> bool:
    """Whether an error answer says the account's quota, credit or spend limit is used up."""
    if status == 402:
        return True
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict):
        return False
    codes = {str(error.get(k, "")).lower() for k in ("code", "type", "status")}
    if codes & _QUOTA_CODES:
        return True
    return status in (400, 403, 429) and bool(_QUOTA_WORDS.search(str(error.get("message", ""))))


def rejected_param(status: int, data: Any, sent: Mapping[str, Any]) -> str | None:
    """The sampling parameter (or ``"n"``) a 400/422 answer refuses, among those ``sent``
    (the request's wire fields); ``None`` when the answer is about something else."""
    if status not in (400, 422):
        return None
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        message = str(error.get("message", ""))
        named = str(error.get("param") or "")
    else:
        message, named = json.dumps(data) if data is not None else "", ""
    if _PROMPT_SPECIFIC.search(message):
        return None
    for name, wires in WIRE_NAMES.items():
        present = [w for w in wires if w in sent]
        if named and named in present:
            return name
        words = [w for w in present if w != "n"]  # a bare "n" is too common to look for
        if any(re.search(rf"(?<![A-Za-z_]){re.escape(w)}(?![A-Za-z_])", message) for w in words):
            return name
    if any(w in sent for w in WIRE_NAMES["n"]) and _MULTIPLE.search(message):
        return "n"
    return None


def sent_fields(body: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a request body that carry parameters, flattened (Gemini's sit in
    ``generationConfig``)."""
    fields = {k: v for k, v in body.items() if k not in ("messages", "contents", "model")}
    config = body.get("generationConfig")
    if isinstance(config, Mapping):
        fields.update(config)
    return fields


# 408/409/425 are transient by definition; 529 is Anthropic's "overloaded".
RETRY_STATUSES = frozenset({408, 409, 425, 429})


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line, cut to ``limit`` characters; only the words that fit are taken
    out of it (a reply's error body may hold millions)."""
    words, size = [], -1  # the length of the words joined
    for word in re.finditer(r"\S+", str(text)):
        words.append(word.group())
        size += len(words[-1]) + 1
        if size > limit:
            break
    text = " ".join(words)
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: What reading a reply of an unexpected shape raises (a list for an object, a number for text).
SHAPE_ERRORS = (KeyError, TypeError, AttributeError, IndexError)


def malformed(provider: str, error: Exception) -> str:
    """The error of a reply that is JSON of another shape than the provider's format."""
    return f"malformed response from {provider}: unexpected shape ({error!r})"


def error_message(data: Any) -> str | None:
    """The message of a provider's error body, on one line (None: it has none)."""
    if not isinstance(data, dict):
        return None
    error = data.get("error")
    if isinstance(error, dict):
        message = error.get("message") or error.get("type") or error.get("status")
        if message:
            return one_line(message)
    if isinstance(error, str) and error:
        return one_line(error)
    if isinstance(data.get("message"), str):
        return one_line(data["message"])
    return None


def retryable(status: int) -> bool:
    """Whether an HTTP status is worth another attempt."""
    return status in RETRY_STATUSES or status >= 500


def is_error_body(data: Any) -> bool:
    """Whether a 2xx body is an error after all (some servers answer errors with 200)."""
    return (
        isinstance(data, dict)
        and data.get("error") is not None
        and not any(k in data for k in ("choices", "content", "candidates"))
    )


def root_cause(error: BaseException) -> str:
    """What a connection error really was, on one line."""
    # requests wraps urllib3's MaxRetryError, whose ``reason`` says what actually happened.
    inner = error.args[0] if error.args and isinstance(error.args[0], BaseException) else error
    reason = getattr(inner, "reason", None)
    cause = reason if isinstance(reason, BaseException) else inner
    return one_line(f"{type(cause).__name__}: {cause}", 200)
