"""Build the HTTP model for a ``PROVIDER:MODEL`` spec: endpoint, key and wire format.

An explicit ``base_url`` overrides the environment. A base URL is what precedes the API
path, as in each vendor's own SDK: ``https://api.openai.com/v1`` (``/chat/completions``
follows), ``https://api.anthropic.com`` (``/v1/messages``) and
``https://generativelanguage.googleapis.com/v1beta`` (``/models/M:generateContent``).
Pasted as another client takes it, it still reaches the API (:func:`api_root`): an Anthropic
base URL ending in ``/v1``, a Gemini one without its version (as Google's SDK takes it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from .anthropic import AnthropicModel
from .base import ModelError, SamplingParams
from .gemini import GeminiModel
from .http import HTTPModel
from .openai import OpenAIChatModel
from .providers import PROVIDERS

# The last part of a URL that names an API version: v1, v1beta, v1alpha, v2, ...
_VERSION_PART = re.compile(r"/v\d+(?:alpha|beta)?\d*$")


def api_root(provider: str, url: str) -> str:
    """The URL the API paths of ``provider`` follow, from a base URL as a user pastes it:
    without a trailing ``/``, with ``http://`` where no scheme is given; the API version
    added where that provider's SDK adds it (Google's takes the bare host and puts
    ``/v1beta`` after it; a local vLLM or Ollama server at ``host:port`` serves ``/v1``),
    and Anthropic's ``/v1`` not twice (its paths are ``/v1/messages``, and a base URL
    ending in ``/v1`` is what OpenAI-style clients take)."""
    url = url.strip().rstrip("/")
    if "://" not in url:  # OLLAMA_HOST is often "host:port"
        url = "http://" + url
    bare_host = url.count("/") == 2  # only scheme://host[:port]
    if provider in ("vllm", "ollama") and bare_host:
        url += "/v1"
    elif provider == "anthropic":
        url = url.removesuffix("/v1")
    elif provider == "gemini" and not _VERSION_PART.search(url):
        url += "/v1beta"
    return url


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
    **transport: Any,
) -> HTTPModel:
    """Build the model for ``PROVIDER:MODEL``; :class:`ModelError` says what is missing.

    ``transport`` goes to the model as it is: read timeout, retries and their waits,
    streaming, the most bytes a reply may bring, summary notes (see :class:`~.http.HTTPModel`,
    which holds their defaults).
    """
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
    url = api_root(provider.name, url)
    variable = next((v for v in provider.key_env if env.get(v, "").strip()), None)
    key = env[variable].strip() if variable is not None else None
    if key is None and provider.key_required and not custom_endpoint:
        need = " or ".join(provider.key_env)
        raise ModelError(
            f"model {spec!r} needs {need} (or pass --codegen-base-url for a local server)"
        )
    if key is not None and not (key.isascii() and key.isprintable()):
        # An HTTP header cannot carry it: every request would fail, showing the key.
        raise ModelError(
            f"model {spec!r}: {variable} holds characters other than printable ASCII "
            "(a quote or a line break pasted with the key?)"
        )
    return _MODEL_CLASSES[provider.api](
        spec, provider, model.strip(), url, key, defaults=defaults, **transport
    )
