"""HTTP model providers, spoken with plain ``requests``: no vendor SDKs.

A model spec is ``PROVIDER:MODEL``. Three wire formats cover every provider:

* OpenAI chat completions: ``openai`` and the OpenAI-compatible family ``fireworks``,
  ``deepseek``, ``openrouter``, ``mistral``, ``together``, ``vllm``, ``ollama`` and
  ``openai-compatible`` (any server, given a base URL);
* Anthropic messages: ``anthropic``;
* Gemini generateContent: ``gemini``.

Keys and endpoints come from the usual environment variables (see :data:`PROVIDERS`); an
explicit ``base_url`` overrides them. A base URL is what precedes the API path, as in each
vendor's own SDK: ``https://api.openai.com/v1`` (``/chat/completions`` follows),
``https://api.anthropic.com`` (``/v1/messages``) and
``https://generativelanguage.googleapis.com/v1beta`` (``/models/M:generateContent``).

Sampling parameters are checked against what each API accepts when the model is built: a
parameter the provider would ignore or reject raises :class:`ModelError` rather than being
dropped, so a reported pass@k always states how it was sampled. The one exception is a
penalty of exactly ``0``, which is every API's default and is simply not sent.

API failures never raise: after bounded retries (429, 5xx, timeouts, dropped connections;
``Retry-After`` honoured) the affected samples come back as ``Completion(error=...)``.
"""

from __future__ import annotations

import dataclasses
import email.utils
import json
import os
import random
import re
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import requests
from requests.adapters import HTTPAdapter

from .base import (
    Completion,
    GenerationRequest,
    Model,
    ModelError,
    SamplingParams,
    merge_params,
)

#: Sampling used by the WebApp1K leaderboard; use it with ``preset=webapp1k`` in an alias.
#: ``top_k`` is part of it, so it suits providers that accept ``top_k`` (not ``openai``).
WEBAPP1K_PARAMS = SamplingParams(
    temperature=0.2, top_p=0.8, top_k=40, presence_penalty=0, frequency_penalty=0
)
PRESETS: dict[str, SamplingParams] = {"webapp1k": WEBAPP1K_PARAMS}

ANTHROPIC_VERSION = "2023-06-01"
#: Anthropic requires ``max_tokens``; this is sent when the parameters leave it unset.
ANTHROPIC_DEFAULT_MAX_TOKENS = 4096

# 408/409/425 are transient by definition; 529 is Anthropic's "overloaded".
_RETRY_STATUSES = frozenset({408, 409, 425, 429})
_PARAM_FIELDS = tuple(f.name for f in dataclasses.fields(SamplingParams))
_INT_PARAMS = frozenset({"top_k", "max_tokens", "seed"})
_ALL_PARAMS = frozenset(_PARAM_FIELDS)
# A value that equals the API default can be left out without changing what is sampled.
_NEUTRAL = {"presence_penalty": 0, "frequency_penalty": 0}


@dataclasses.dataclass(frozen=True)
class Provider:
    """How to reach one provider and what its API accepts."""

    name: str
    api: str  # wire format: "openai", "anthropic" or "gemini"
    default_url: str | None
    url_env: tuple[str, ...]
    key_env: tuple[str, ...]
    key_required: bool  # on the provider's own endpoint; a custom base URL makes it optional
    params: frozenset[str]
    max_n: int  # most samples one request may ask for (``n`` / ``candidateCount``)
    seed_field: str = "seed"
    max_tokens_field: str = "max_tokens"


_OPENAI_BASIC = frozenset(
    {"temperature", "top_p", "max_tokens", "presence_penalty", "frequency_penalty", "seed"}
)


def _provider(
    name: str,
    url: str | None,
    key: str,
    *,
    api: str = "openai",
    params: frozenset[str] = _ALL_PARAMS,
    max_n: int = 128,
    key_required: bool = True,
    url_env: str | None = None,
    key_env: tuple[str, ...] = (),
    **extra: str,
) -> Provider:
    env = name.upper().replace("-", "_")
    return Provider(
        name=name,
        api=api,
        default_url=url,
        url_env=(url_env or f"{env}_BASE_URL",),
        key_env=(key, *key_env),
        key_required=key_required,
        params=params,
        max_n=max_n,
        **extra,
    )


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        _provider(
            "openai",
            "https://api.openai.com/v1",
            "OPENAI_API_KEY",
            params=_OPENAI_BASIC,
            max_tokens_field="max_completion_tokens",
        ),
        _provider("fireworks", "https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY"),
        _provider(
            "deepseek",
            "https://api.deepseek.com/v1",
            "DEEPSEEK_API_KEY",
            params=_OPENAI_BASIC - {"seed"},
            max_n=1,
        ),
        _provider("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", max_n=1),
        _provider(
            "mistral",
            "https://api.mistral.ai/v1",
            "MISTRAL_API_KEY",
            params=_OPENAI_BASIC,
            seed_field="random_seed",
        ),
        _provider("together", "https://api.together.xyz/v1", "TOGETHER_API_KEY"),
        _provider("vllm", "http://localhost:8000/v1", "VLLM_API_KEY", key_required=False),
        _provider(
            "ollama",
            "http://localhost:11434/v1",
            "OLLAMA_API_KEY",
            params=_OPENAI_BASIC,
            max_n=1,
            key_required=False,
            url_env="OLLAMA_HOST",
        ),
        _provider("openai-compatible", None, "OPENAI_COMPATIBLE_API_KEY", key_required=False),
        _provider(
            "anthropic",
            "https://api.anthropic.com",
            "ANTHROPIC_API_KEY",
            api="anthropic",
            params=frozenset({"temperature", "top_p", "top_k", "max_tokens"}),
            max_n=1,
        ),
        _provider(
            "gemini",
            "https://generativelanguage.googleapis.com/v1beta",
            "GEMINI_API_KEY",
            api="gemini",
            max_n=8,
            key_env=("GOOGLE_API_KEY",),
        ),
    )
}


# --------------------------------------------------------------------------- helpers


def check_params(provider: str, params: SamplingParams) -> None:
    """Raise :class:`ModelError` naming the first parameter ``provider`` does not accept."""
    accepted = PROVIDERS[provider].params
    for name, value in params.as_dict().items():
        if name not in accepted and _NEUTRAL.get(name) != value:
            raise ModelError(
                f"{provider} does not accept {name}; remove it from the sampling parameters"
            )


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


def _split(total: Any, parts: int) -> list[int | None]:
    """Share a response's token count between its samples so that sums stay exact."""
    if not isinstance(total, int) or isinstance(total, bool) or parts <= 0:
        return [None] * parts
    share, rest = divmod(total, parts)
    return [share + (1 if i < rest else 0) for i in range(parts)]


def _join(*parts: str | None) -> str | None:
    kept = [p.strip() for p in parts if isinstance(p, str) and p.strip()]
    return "\n\n".join(kept) if kept else None


def _normalize_url(url: str, *, add_v1: bool = False) -> str:
    url = url.strip().rstrip("/")
    if "://" not in url:  # OLLAMA_HOST is often "host:port"
        url = "http://" + url
    if add_v1 and url.count("/") == 2:  # only scheme://host[:port]: add the API root
        url += "/v1"
    return url


class _APIError(Exception):
    """An API failure that survived retries; becomes ``Completion(error=...)``."""


# --------------------------------------------------------------------------- models


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
            except _APIError as e:
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
            raise _APIError(
                f"malformed response from {self.provider.name}: unexpected shape ({e!r})"
            ) from None

    def _post(self, url: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[Any, float]:
        name = self.provider.name
        last = ""
        for attempt in range(1, self.max_attempts + 1):
            if self._closed.is_set():
                raise _APIError(f"{name}: model closed")
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
                raise _APIError(f"request to {name} failed: {_oneline(str(e), 200)}") from None
            else:
                latency = time.monotonic() - start
                status = response.status_code
                if 200 <= status < 300:
                    try:
                        data = response.json()
                    except ValueError:
                        snippet = _oneline(response.text, 80)
                        raise _APIError(
                            f"HTTP {status} from {name}: malformed JSON in response ({snippet!r})"
                        ) from None
                    if not _is_error_body(data):
                        return data, latency
                    # Some gateways (OpenRouter) report upstream failures inside a 200.
                    code = data["error"].get("code") if isinstance(data["error"], dict) else None
                    last = f"HTTP {status} from {name}: {_error_message(data) or 'error'}"
                    if not (isinstance(code, int) and _retryable(code)):
                        raise _APIError(last)
                else:
                    last = f"HTTP {status} from {name}: {_provider_message(response)}"
                    if not _retryable(status):
                        raise _APIError(last)
                    retry_after = parse_retry_after(response.headers)
            if attempt == self.max_attempts:
                break
            if self._closed.wait(self._delay(attempt, retry_after)):
                raise _APIError(f"{last} (model closed while retrying)")
        raise _APIError(f"{last} (after {self.max_attempts} attempts)")

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


class OpenAIChatModel(HTTPModel):
    """OpenAI chat completions and the servers that copy it."""

    def _build(
        self, text: str, system: str | None, params: SamplingParams, n: int
    ) -> tuple[str, dict[str, str], dict[str, Any]]:
        p = self.provider
        messages = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": text})
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if n > 1:
            body["n"] = n
        for name, value in params.as_dict().items():
            if name not in p.params:
                continue  # a neutral value check_params let through
            key = {"seed": p.seed_field, "max_tokens": p.max_tokens_field}.get(name, name)
            body[key] = value
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return f"{self.base_url}/chat/completions", headers, body

    def _parse(self, data: Any, latency: float, n: int) -> list[Completion]:
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list):
            raise _APIError(f"malformed response from {self.provider.name}: no 'choices' list")
        choices = choices[:n]
        usage = data.get("usage") or {}
        prompt = _split(usage.get("prompt_tokens"), len(choices))
        completion = _split(usage.get("completion_tokens"), len(choices))
        out = []
        for i, choice in enumerate(choices):
            message = choice.get("message")
            if not isinstance(message, dict):
                raise _APIError(
                    f"malformed response from {self.provider.name}: choice without 'message'"
                )
            content = message.get("content")
            if isinstance(content, list):  # some servers return content parts
                content = "".join(
                    part.get("text", "") for part in content if isinstance(part, dict)
                )
            answer, think = split_think(content or "")
            reasoning = message.get("reasoning_content") or message.get("reasoning")
            out.append(
                Completion(
                    text=answer,
                    reasoning=_join(reasoning if isinstance(reasoning, str) else None, think),
                    prompt_tokens=prompt[i],
                    completion_tokens=completion[i],
                    latency_s=latency,
                    finish_reason=choice.get("finish_reason"),
                )
            )
        return out


class AnthropicModel(HTTPModel):
    """Anthropic messages: one sample per request."""

    def _build(
        self, text: str, system: str | None, params: SamplingParams, n: int
    ) -> tuple[str, dict[str, str], dict[str, Any]]:
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": params.max_tokens or ANTHROPIC_DEFAULT_MAX_TOKENS,
            "messages": [{"role": "user", "content": text}],
        }
        if system:
            body["system"] = system
        for name in ("temperature", "top_p", "top_k"):
            value = getattr(params, name)
            if value is not None:
                body[name] = value
        headers = {
            "Content-Type": "application/json",
            "anthropic-version": ANTHROPIC_VERSION,
        }
        if self.api_key:
            headers["x-api-key"] = self.api_key
        return f"{self.base_url}/v1/messages", headers, body

    def _parse(self, data: Any, latency: float, n: int) -> list[Completion]:
        blocks = data.get("content") if isinstance(data, dict) else None
        if not isinstance(blocks, list):
            raise _APIError(f"malformed response from {self.provider.name}: no 'content' list")
        texts = [b.get("text", "") for b in blocks if b.get("type") == "text"]
        thoughts = [b.get("thinking", "") for b in blocks if b.get("type") == "thinking"]
        answer, think = split_think("".join(texts))
        usage = data.get("usage") or {}
        return [
            Completion(
                text=answer,
                reasoning=_join(*thoughts, think),
                prompt_tokens=usage.get("input_tokens"),
                completion_tokens=usage.get("output_tokens"),
                latency_s=latency,
                finish_reason=data.get("stop_reason"),
            )
        ]


class GeminiModel(HTTPModel):
    """Gemini generateContent; ``candidateCount`` asks for several samples at once."""

    _FIELDS = {
        "temperature": "temperature",
        "top_p": "topP",
        "top_k": "topK",
        "max_tokens": "maxOutputTokens",
        "presence_penalty": "presencePenalty",
        "frequency_penalty": "frequencyPenalty",
        "seed": "seed",
    }

    def _build(
        self, text: str, system: str | None, params: SamplingParams, n: int
    ) -> tuple[str, dict[str, str], dict[str, Any]]:
        body: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": text}]}]}
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        config = {self._FIELDS[k]: v for k, v in params.as_dict().items()}
        if n > 1:
            config["candidateCount"] = n
        if config:
            body["generationConfig"] = config
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["x-goog-api-key"] = self.api_key
        model = self.model.removeprefix("models/")
        return f"{self.base_url}/models/{model}:generateContent", headers, body

    def _parse(self, data: Any, latency: float, n: int) -> list[Completion]:
        candidates = data.get("candidates") if isinstance(data, dict) else None
        if candidates is None and isinstance(data, dict):
            blocked = (data.get("promptFeedback") or {}).get("blockReason")
            if blocked:
                raise _APIError(f"{self.provider.name} blocked the prompt: {blocked}")
        if not isinstance(candidates, list):
            raise _APIError(f"malformed response from {self.provider.name}: no 'candidates' list")
        candidates = candidates[:n]
        usage = data.get("usageMetadata") or {}
        output = usage.get("candidatesTokenCount")
        if isinstance(output, int) and isinstance(usage.get("thoughtsTokenCount"), int):
            output += usage["thoughtsTokenCount"]
        prompt = _split(usage.get("promptTokenCount"), len(candidates))
        completion = _split(output, len(candidates))
        out = []
        for i, candidate in enumerate(candidates):
            parts = (candidate.get("content") or {}).get("parts") or []
            texts = [p.get("text", "") for p in parts if not p.get("thought")]
            thoughts = [p.get("text", "") for p in parts if p.get("thought")]
            answer, think = split_think("".join(texts))
            out.append(
                Completion(
                    text=answer,
                    reasoning=_join(*thoughts, think),
                    prompt_tokens=prompt[i],
                    completion_tokens=completion[i],
                    latency_s=latency,
                    finish_reason=candidate.get("finishReason"),
                )
            )
        return out


_MODEL_CLASSES: dict[str, type[HTTPModel]] = {
    "openai": OpenAIChatModel,
    "anthropic": AnthropicModel,
    "gemini": GeminiModel,
}


def make_provider_model(
    spec: str,
    *,
    base_url: str | None = None,
    defaults: SamplingParams | None = None,
    env: Mapping[str, str] = os.environ,
    timeout_s: float = 120,
    max_attempts: int = 6,
    pool_size: int = 64,
    backoff_s: float = 1.0,
    max_backoff_s: float = 60.0,
) -> HTTPModel:
    """Build the model for ``PROVIDER:MODEL``; :class:`ModelError` says what is missing."""
    name, sep, model = spec.partition(":")
    provider = PROVIDERS.get(name.strip().lower())
    known = ", ".join(PROVIDERS)
    if not sep or not model.strip() or not name.strip():
        raise ModelError(
            f"model {spec!r} is not PROVIDER:MODEL or a known alias (providers: {known})"
        )
    if provider is None:
        raise ModelError(f"unknown model provider {name!r} in {spec!r} (known: {known})")
    url = base_url or next((env[v] for v in provider.url_env if env.get(v, "").strip()), None)
    custom_endpoint = url is not None
    url = url or provider.default_url
    if url is None:
        raise ModelError(
            f"model {spec!r} needs a base URL: set {provider.url_env[0]} or pass --codegen-base-url"
        )
    url = _normalize_url(url, add_v1=provider.name in ("vllm", "ollama"))
    key = next((env[v].strip() for v in provider.key_env if env.get(v, "").strip()), None)
    if key is None and provider.key_required and not custom_endpoint:
        need = " or ".join(provider.key_env)
        raise ModelError(
            f"model {spec!r} needs {need} (or pass --codegen-base-url for a local server)"
        )
    return _MODEL_CLASSES[provider.api](
        spec,
        provider,
        model.strip(),
        url,
        key,
        defaults=defaults,
        timeout_s=timeout_s,
        max_attempts=max_attempts,
        pool_size=pool_size,
        backoff_s=backoff_s,
        max_backoff_s=max_backoff_s,
    )


# --------------------------------------------------------------------------- aliases

_ALIAS_KEYS = frozenset({"provider", "model", "base_url", "preset", *_PARAM_FIELDS})


def resolve_alias(
    name: str, table: Mapping[str, Mapping[str, Any]]
) -> tuple[str, SamplingParams, str | None]:
    """Resolve a bare model name through ``table``: ``(spec, sampling params, base URL)``.

    An entry is ``{provider, model, base_url?, preset?, temperature?, top_p?, ...}``; a
    ``preset`` (``webapp1k``) supplies parameters the entry's own ones then override.
    """
    entry = table.get(name)
    if entry is None:
        known = ", ".join(sorted(table)) or "none are defined"
        raise ModelError(f"unknown model alias {name!r} (known aliases: {known})")
    unknown = sorted(set(entry) - _ALIAS_KEYS)
    if unknown:
        raise ModelError(
            f"model alias {name!r}: unknown setting {unknown[0]!r} "
            f"(allowed: {', '.join(sorted(_ALIAS_KEYS))})"
        )
    provider, model = entry.get("provider"), entry.get("model")
    if not provider and isinstance(model, str) and ":" in model:
        provider, model = model.split(":", 1)
    if not provider or not model:
        raise ModelError(f"model alias {name!r} needs a provider and a model")
    if str(provider).lower() not in PROVIDERS:
        raise ModelError(
            f"model alias {name!r}: unknown provider {provider!r} (known: {', '.join(PROVIDERS)})"
        )
    preset = entry.get("preset")
    if preset is not None and str(preset).lower() not in PRESETS:
        raise ModelError(
            f"model alias {name!r}: unknown preset {preset!r} (known: {', '.join(PRESETS)})"
        )
    params = PRESETS[str(preset).lower()] if preset is not None else SamplingParams()
    overrides = {
        field: _coerce(name, field, entry[field])
        for field in _PARAM_FIELDS
        if entry.get(field) is not None
    }
    base_url = entry.get("base_url") or None
    return (
        f"{str(provider).lower()}:{model}",
        dataclasses.replace(params, **overrides),
        str(base_url) if base_url else None,
    )


def parse_models_table(lines: Sequence[str] | str) -> dict[str, dict[str, Any]]:
    """Parse the ini form ``alias = provider:model key=value ...``, one alias a line.

    Blank lines and ``#`` comments are skipped; numbers are converted, so the result can go
    straight to :func:`resolve_alias`.
    """
    if isinstance(lines, str):
        lines = lines.splitlines()
    table: dict[str, dict[str, Any]] = {}
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        alias, eq, rest = line.partition("=")
        alias, words = alias.strip(), rest.split()
        where = f"model alias line {lineno} ({line!r})"
        if not eq or not alias or not words or ":" not in words[0] or "=" in words[0]:
            raise ModelError(f"{where}: expected 'alias = provider:model key=value ...'")
        if alias in table:
            raise ModelError(f"{where}: alias {alias!r} is defined twice")
        provider, model = words[0].split(":", 1)
        entry: dict[str, Any] = {"provider": provider.lower(), "model": model}
        for word in words[1:]:
            key, eq, value = word.partition("=")
            if not eq or key not in _ALIAS_KEYS - {"provider", "model"}:
                allowed = ", ".join(sorted(_ALIAS_KEYS - {"provider", "model"}))
                raise ModelError(f"{where}: unknown setting {word!r} (allowed: {allowed})")
            entry[key] = _coerce(alias, key, value) if key in _PARAM_FIELDS else value
        table[alias] = entry
    return table


def _coerce(alias: str, field: str, value: Any) -> int | float:
    kind = int if field in _INT_PARAMS else float
    if isinstance(value, bool):
        raise ModelError(f"model alias {alias!r}: {field} must be a number, not {value!r}")
    try:
        number = kind(value)
        if kind is int and isinstance(value, float) and value != number:
            raise ValueError
    except (TypeError, ValueError):
        what = "an integer" if kind is int else "a number"
        raise ModelError(f"model alias {alias!r}: {field} must be {what}, not {value!r}") from None
    return number
