"""The HTTP providers: where each one is, which key it needs, what its API accepts.

A model spec is ``PROVIDER:MODEL``. Three wire formats cover every provider:

* OpenAI chat completions: ``openai`` and the OpenAI-compatible family ``fireworks``,
  ``deepseek``, ``openrouter``, ``mistral``, ``together``, ``vllm``, ``ollama`` and
  ``openai-compatible`` (any server, given a base URL);
* Anthropic messages: ``anthropic``;
* Gemini generateContent: ``gemini``.

Keys and endpoints come from the usual environment variables (see :data:`PROVIDERS`).

Sampling parameters are checked against what each API accepts when the model is built: a
parameter the provider would ignore or reject raises :class:`ModelError` rather than being
dropped, so a reported pass@k always states how it was sampled. The one exception is a
penalty of exactly ``0``, which is every API's default and is simply not sent. What single
model families refuse beyond that (OpenAI's reasoning models, Claude 4.5+, Gemini 3) is the
table of :mod:`~pytest_codegen.models.rules`.
"""

from __future__ import annotations

import dataclasses

from .base import ModelError, SamplingParams

_ALL_PARAMS = frozenset(f.name for f in dataclasses.fields(SamplingParams))
# A value that equals the API default can be left out without changing what is sampled.
NEUTRAL = {"presence_penalty": 0, "frequency_penalty": 0}


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
    #: Streams replies (server-sent events) by default, so that a long generation never
    #: waits on one read; ``stream_usage`` asks OpenAI-style servers for token usage in the
    #: stream (``stream_options``), which some servers reject as an unknown field.
    stream: bool = True
    stream_usage: bool = True


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
    **extra: str | bool,
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
        **extra,  # type: ignore[arg-type]
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
            stream_usage=False,  # usage comes in the last chunk anyway
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
        # Any server: whether it streams is unknown, so it gets plain requests and the
        # --codegen-request-timeout.
        _provider(
            "openai-compatible",
            None,
            "OPENAI_COMPATIBLE_API_KEY",
            key_required=False,
            stream=False,
        ),
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


def check_params(provider: str, params: SamplingParams, accepts: str | None = None) -> None:
    """Raise :class:`ModelError` naming the first parameter ``provider`` does not accept
    (and, given ``accepts``, what the model does accept)."""
    accepted = PROVIDERS[provider].params
    for name, value in params.as_dict().items():
        if name not in accepted and NEUTRAL.get(name) != value:
            flag = "--codegen-" + name.replace("_", "-")
            raise ModelError(
                f"{provider} does not accept {name} ({flag}); "
                + (f"it accepts {accepts}" if accepts else "remove it")
            )
