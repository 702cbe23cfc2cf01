"""What the fake provider server accepts, as strictly as the real APIs: each format's request
fields and shapes (:func:`check_request`), and the rules of today's models, answered as the
real APIs answer them (status and body; :func:`refusal`): OpenAI reasoning models, Claude 4.5+
and Opus 4.7+, Gemini 3. DeepSeek's reasoner accepts sampling parameters and ignores them, as
the real one does.

A test can add a rule the plugin's own table does not know (:class:`Refusal`), to see it
learned at run time.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

OPENAI_FIELDS = frozenset(
    {
        "model",
        "messages",
        "n",
        "temperature",
        "top_p",
        "top_k",
        "max_tokens",
        "max_completion_tokens",
        "presence_penalty",
        "frequency_penalty",
        "seed",
        "random_seed",
        "stop",
        "stream",
        "stream_options",
    }
)
ANTHROPIC_FIELDS = frozenset(
    {
        "model",
        "max_tokens",
        "messages",
        "system",
        "temperature",
        "top_p",
        "top_k",
        "thinking",
        "stream",
    }
)
GEMINI_CONFIG_FIELDS = frozenset(
    {
        "temperature",
        "topP",
        "topK",
        "candidateCount",
        "maxOutputTokens",
        "presencePenalty",
        "frequencyPenalty",
        "seed",
        "stopSequences",
    }
)
_NUMBER = (int, float)
_OPENAI_REASONING = re.compile(r"^(o[1-9](?![0-9])|gpt-5(?![.0-9])(?!-chat))")
_CLAUDE = re.compile(r"^claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?![0-9])")
_GEMINI = re.compile(r"^gemini-(\d+)(?:\.(\d+))?")


@dataclasses.dataclass
class Refusal:
    """Requests for ``model`` whose ``field`` (a wire field; Gemini's inside
    generationConfig) satisfies ``when`` get a 400 with ``message``."""

    model: str
    field: str
    message: str
    when: Callable[[Any], bool] = lambda value: True


def openai_error(message: str, param: str | None, code: str | None) -> dict[str, Any]:
    return {
        "error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    }


def anthropic_error(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def gemini_error(status: int, message: str, code: str = "INVALID_ARGUMENT") -> dict[str, Any]:
    return {"error": {"code": status, "message": message, "status": code}}


def refusal(api: str, body: dict[str, Any], model: str, extra: list[Refusal]) -> Any:
    """``(status, error body)`` if the real API would refuse this request, else ``None``."""
    fields = dict(body)
    if api == "gemini":
        fields.update(body.get("generationConfig") or {})
    for rule in extra:
        if rule.model == model and rule.field in fields and rule.when(fields[rule.field]):
            return 400, _error(api, rule.message, rule.field)
    if api == "openai" and _OPENAI_REASONING.match(model):
        if "max_tokens" in body:
            return 400, openai_error(
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                "max_tokens",
                "unsupported_parameter",
            )
        for name in ("temperature", "top_p"):
            if name in body and body[name] != 1:
                return 400, openai_error(
                    f"Unsupported value: '{name}' does not support {body[name]} with this "
                    "model. Only the default (1) value is supported.",
                    name,
                    "unsupported_value",
                )
        for name in ("presence_penalty", "frequency_penalty"):
            if name in body:
                return 400, openai_error(
                    f"Unsupported parameter: '{name}' is not supported with this model.",
                    name,
                    "unsupported_parameter",
                )
    found = _CLAUDE.match(model) if api == "anthropic" else None
    if found:
        version = (int(found.group(2)), int(found.group(3) or 0))
        if found.group(1) == "opus" and version >= (4, 7):
            for name in ("temperature", "top_p", "top_k"):
                if name in body:
                    return 400, anthropic_error(f"`{name}` is deprecated for this model.")
        if version >= (4, 5) and "temperature" in body and "top_p" in body:
            return 400, anthropic_error(
                "`temperature` and `top_p` cannot both be specified for this model. "
                "Please use only one."
            )
    found = _GEMINI.match(model) if api == "gemini" else None
    if found and int(found.group(1)) >= 3 and fields.get("candidateCount", 1) > 1:
        return 400, gemini_error(400, f"Multiple candidates is not enabled for models/{model}")
    return None


def _error(api: str, message: str, field: str) -> dict[str, Any]:
    if api == "anthropic":
        return anthropic_error(message)
    if api == "gemini":
        return gemini_error(400, message)
    return openai_error(message, field, "unsupported_parameter")


class BadRequest(Exception):
    """A request the real API would refuse as malformed (400, or 401 for a key)."""


def check_request(req: Any, key: str | None) -> None:
    """Raise :class:`BadRequest` for a request the real API would refuse as malformed."""
    if req.api == "unknown":
        raise BadRequest(f"no such endpoint: {req.path}")
    if "application/json" not in req.headers.get("content-type", ""):
        raise BadRequest("content-type must be application/json")
    body = req.body
    if not isinstance(body, dict):
        raise BadRequest("body must be a JSON object")
    if req.api == "openai":
        if key is not None and req.headers.get("authorization") != f"Bearer {key}":
            raise BadRequest("invalid api key")
        unknown = sorted(set(body) - OPENAI_FIELDS)
        if unknown:
            raise BadRequest(f"Unrecognized request argument supplied: {unknown[0]}")
        _need(isinstance(body.get("model"), str) and body["model"], "model is required")
        _messages(body.get("messages"), roles=("system", "user"))
        _need("n" not in body or _positive_int(body["n"]), "n must be a positive integer")
        for name in ("temperature", "top_p", "presence_penalty", "frequency_penalty"):
            _need(name not in body or _number(body[name]), f"{name} must be a number")
    elif req.api == "anthropic":
        if key is not None and req.headers.get("x-api-key") != key:
            raise BadRequest("invalid x-api-key")
        _need(req.headers.get("anthropic-version") == "2023-06-01", "anthropic-version")
        unknown = sorted(set(body) - ANTHROPIC_FIELDS)
        if unknown:
            raise BadRequest(f"{unknown[0]}: Extra inputs are not permitted")
        _need(isinstance(body.get("model"), str) and body["model"], "model: Field required")
        _need(_positive_int(body.get("max_tokens")), "max_tokens: Field required")
        _messages(body.get("messages"), roles=("user",))
        _need("system" not in body or isinstance(body["system"], str), "system: str")
    else:
        if key is not None and req.headers.get("x-goog-api-key") != key:
            raise BadRequest("API key not valid")
        unknown = sorted(set(body) - {"contents", "systemInstruction", "generationConfig"})
        if unknown:
            raise BadRequest(f'Invalid JSON payload received. Unknown name "{unknown[0]}"')
        contents = body.get("contents")
        _need(isinstance(contents, list) and contents, "contents is required")
        for content in contents:
            _need(content.get("role") in ("user", "model"), "content role")
            _parts(content.get("parts"))
        if "systemInstruction" in body:
            _parts(body["systemInstruction"].get("parts"))
        config = body.get("generationConfig", {})
        _need(isinstance(config, dict), "generationConfig must be an object")
        unknown = sorted(set(config) - GEMINI_CONFIG_FIELDS)
        if unknown:
            raise BadRequest(f'Unknown name "{unknown[0]}" at generation_config')
        count = config.get("candidateCount", 1)
        _need(_positive_int(count) and count <= 8, "candidateCount must be 1..8")


def _need(ok: Any, message: str) -> None:
    if not ok:
        raise BadRequest(message)


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _number(value: Any) -> bool:
    return isinstance(value, _NUMBER) and not isinstance(value, bool)


def _messages(messages: Any, roles: tuple[str, ...]) -> None:
    _need(isinstance(messages, list) and messages, "messages is required")
    for message in messages:
        _need(isinstance(message, dict), "a message must be an object")
        _need(message.get("role") in roles, f"unexpected role {message.get('role')!r}")
        _need(isinstance(message.get("content"), str), "content must be a string")
    _need(messages[-1]["role"] == "user", "the last message must be the user's")


def _parts(parts: Any) -> None:
    _need(isinstance(parts, list) and parts, "parts is required")
    for part in parts:
        _need(isinstance(part, dict) and isinstance(part.get("text"), str), "part.text")
