"""The HTTP transport every provider model shares, spoken with plain ``requests``: no
vendor SDKs.

:class:`HTTPModel` posts the requests its wire-format subclasses build
(:mod:`~pytest_codegen.models.openai`, :mod:`~pytest_codegen.models.anthropic`,
:mod:`~pytest_codegen.models.gemini`) and hands them the replies to parse; the helpers they
share for that (:func:`split_think`, :func:`split_tokens`, :func:`join_reasoning`) are here too.

API failures never raise: after bounded retries (429, 5xx, timeouts, dropped connections;
``Retry-After`` honoured) the affected samples come back as ``Completion(error=...)``.
"""

from __future__ import annotations

import dataclasses
import email.utils
import json
import random
import re
import threading
import time
from collections.abc import Mapping
from typing import Any

import requests
from requests.adapters import HTTPAdapter

from .base import Completion, GenerationRequest, Model, SamplingParams, merge_params
from .catalog import Provider, check_params

# 408/409/425 are transient by definition; 529 is Anthropic's "overloaded".
_RETRY_STATUSES = frozenset({408, 409, 425, 429})

_THINK = re.compile(r"\A\s*<think>(.*?)</think>\s*", re.S)


def split_think(text: str) -> tuple[str, str | None]:
    """Move a leading ``<think>...</think>`` block out of ``text``: ``(answer, reasoning)``.

    Also handles an unclosed block (the reply was cut off while thinking: no answer) and a
    bare ``</think>`` with no opening tag, which servers emit when the chat template already
    opened the block inside the prompt.
    """
    match = _THINK.match(text)
    if match:
        return text[match.end() :], match.group(1).strip()
    stripped = text.lstrip()
    if stripped.startswith("<think>"):
        return "", stripped[len("<think>") :].strip()
    if "</think>" in text and "<think>" not in text:
        head, _, tail = text.partition("</think>")
        return tail.lstrip(), head.strip()
    return text, None


def split_tokens(total: Any, parts: int) -> list[int | None]:
    """Share a response's token count between its samples so that sums stay exact."""
    if not isinstance(total, int) or isinstance(total, bool) or parts <= 0:
        return [None] * parts
    share, rest = divmod(total, parts)
    return [share + (1 if i < rest else 0) for i in range(parts)]


def join_reasoning(*parts: str | None) -> str | None:
    """The non-empty pieces of reasoning of one reply, one paragraph each."""
    kept = [p.strip() for p in parts if isinstance(p, str) and p.strip()]
    return "\n\n".join(kept) if kept else None


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


def _oneline(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _provider_message(response: requests.Response) -> str:
    """The provider's own error message from an error body, else the body's start."""
    try:
        data = response.json()
    except ValueError:
        return _oneline(response.text or response.reason or "no body", 200)
    message = _error_message(data)
    return message if message is not None else _oneline(json.dumps(data), 200)


def _error_message(data: Any) -> str | None:
    if not isinstance(data, dict):
        return None
    error = data.get("error")
    if isinstance(error, dict):
        message = error.get("message") or error.get("type") or error.get("status")
        if message:
            return _oneline(message)
    if isinstance(error, str) and error:
        return _oneline(error)
    if isinstance(data.get("message"), str):
        return _oneline(data["message"])
    return None


class APIError(Exception):
    """An API failure that survived retries; becomes ``Completion(error=...)``."""


class HTTPModel(Model):
    """A model behind an HTTP API; subclasses build requests and parse replies."""

    cacheable = True

    def __init__(
        self,
        spec: str,
        provider: Provider,
        model: str,
        base_url: str,
        api_key: str | None,
        *,
        defaults: SamplingParams | None = None,
        timeout_s: float = 120,
        max_attempts: int = 6,
        pool_size: int = 64,
        backoff_s: float = 1.0,
        max_backoff_s: float = 60.0,
        max_retry_after_s: float = 300.0,
    ) -> None:
        self.spec = spec
        self.provider = provider
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.defaults = defaults or SamplingParams()
        self.timeout_s = timeout_s
        self.max_attempts = max(1, max_attempts)
        self.max_n = provider.max_n
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.max_retry_after_s = max_retry_after_s
        self.check_params(self.defaults)
        self.session = requests.Session()
        self.session.headers["User-Agent"] = "pytest-codegen"
        # One pool shared by every generation thread; sized so no connection is discarded.
        adapter = HTTPAdapter(pool_connections=4, pool_maxsize=max(1, pool_size), max_retries=0)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self._closed = threading.Event()

    def check_params(self, params: SamplingParams) -> None:
        """Raise :class:`ModelError` if ``params`` holds something this API does not accept."""
        check_params(self.provider.name, params)

    def generate(self, request: GenerationRequest) -> list[Completion]:
        params = merge_params(self.defaults, request.params)
        self.check_params(params)
        indices = list(request.sample_indices)
        out: list[Completion] = []
        while len(out) < len(indices):
            want = min(len(indices) - len(out), self.max_n)
            call_params = params
            if params.seed is not None:
                # Separate requests with one seed would return identical samples.
                call_params = dataclasses.replace(params, seed=params.seed + indices[len(out)])
            try:
                got = self._call(request.prompt.text, request.prompt.system, call_params, want)
            except APIError as e:
                out.extend(Completion(error=str(e)) for _ in range(len(indices) - len(out)))
                break
            if not got:
                message = f"{self.provider.name} returned no choices"
                out.extend(Completion(error=message) for _ in range(len(indices) - len(out)))
                break
            out.extend(got[:want])  # fewer than asked: the loop requests the rest
        return out

    def close(self) -> None:
        self._closed.set()
        self.session.close()

    # -- transport

    def _call(
        self, text: str, system: str | None, params: SamplingParams, n: int
    ) -> list[Completion]:
        url, headers, body = self._build(text, system, params, n)
        data, latency = self._post(url, headers, body)
        try:
            return self._parse(data, latency, n)
        except (KeyError, TypeError, AttributeError, IndexError) as e:
            raise APIError(
                f"malformed response from {self.provider.name}: unexpected shape ({e!r})"
            ) from None

    def _post(self, url: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[Any, float]:
        name = self.provider.name
        last = ""
        for attempt in range(1, self.max_attempts + 1):
            if self._closed.is_set():
                raise APIError(f"{name}: model closed")
            retry_after: float | None = None
            start = time.monotonic()
            try:
                response = self.session.post(
                    url,
                    headers=headers,
                    json=body,
                    timeout=(min(10.0, self.timeout_s), self.timeout_s),
                )
            except requests.Timeout:
                last = f"timeout from {name}: no response within {self.timeout_s:g}s"
            except requests.ConnectionError as e:
                last = f"connection error from {name}: {_oneline(_root_cause(e), 200)}"
            except requests.RequestException as e:
                raise APIError(f"request to {name} failed: {_oneline(str(e), 200)}") from None
            else:
                latency = time.monotonic() - start
                status = response.status_code
                if 200 <= status < 300:
                    try:
                        data = response.json()
                    except ValueError:
                        snippet = _oneline(response.text, 80)
                        raise APIError(
                            f"HTTP {status} from {name}: malformed JSON in response ({snippet!r})"
                        ) from None
                    if not _is_error_body(data):
                        return data, latency
                    # Some gateways (OpenRouter) report upstream failures inside a 200.
                    code = data["error"].get("code") if isinstance(data["error"], dict) else None
                    last = f"HTTP {status} from {name}: {_error_message(data) or 'error'}"
                    if not (isinstance(code, int) and _retryable(code)):
                        raise APIError(last)
                else:
                    last = f"HTTP {status} from {name}: {_provider_message(response)}"
                    if not _retryable(status):
                        raise APIError(last)
                    retry_after = parse_retry_after(response.headers)
            if attempt == self.max_attempts:
                break
            if self._closed.wait(self._delay(attempt, retry_after)):
                raise APIError(f"{last} (model closed while retrying)")
        raise APIError(f"{last} (after {self.max_attempts} attempts)")

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            # The server's word, plus a little jitter so waiting threads do not stampede.
            wait = min(retry_after, self.max_retry_after_s)
            return wait + random.uniform(0, 0.1 * wait)
        cap = min(self.max_backoff_s, self.backoff_s * 2 ** (attempt - 1))
        return cap / 2 + random.uniform(0, cap / 2)

    # -- wire format (subclasses)

    def _build(
        self, text: str, system: str | None, params: SamplingParams, n: int
    ) -> tuple[str, dict[str, str], dict[str, Any]]:
        raise NotImplementedError

    def _parse(self, data: Any, latency: float, n: int) -> list[Completion]:
        raise NotImplementedError


def _retryable(status: int) -> bool:
    return status in _RETRY_STATUSES or status >= 500


def _is_error_body(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and data.get("error") is not None
        and not any(k in data for k in ("choices", "content", "candidates"))
    )


def _root_cause(error: BaseException) -> str:
    # requests wraps urllib3's MaxRetryError, whose ``reason`` says what actually happened.
    inner = error.args[0] if error.args and isinstance(error.args[0], BaseException) else error
    reason = getattr(inner, "reason", None)
    cause = reason if isinstance(reason, BaseException) else inner
    return f"{type(cause).__name__}: {cause}"
