"""Parsers of option values that are more than a type: each takes the text given and returns
the value, or raises ``ValueError`` saying what the value must be."""

from __future__ import annotations

import datetime
from collections.abc import Callable


def iso_date(text: str) -> str:
    """An ISO date (``2024-09-01``, or with a time); kept as text, compared as ISO text."""
    try:
        datetime.datetime.fromisoformat(text)
    except ValueError:
        raise ValueError("must be an ISO date such as 2024-09-01") from None
    return text


def release(text: str) -> int:
    """``v5`` (or ``release_v5``): a release number."""
    digits = text.removeprefix("release_").removeprefix("v")
    if not digits.isdigit() or int(digits) < 1:
        raise ValueError("must be a release such as v5")
    return int(digits)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError("must be at least 1")
    return value


def non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError("must not be negative")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise ValueError("must be a positive number")
    return value


def k_list(text: str) -> tuple[int, ...]:
    ks = sorted({positive_int(part.strip()) for part in text.split(",") if part.strip()})
    if not ks:
        raise ValueError("needs at least one k, e.g. 1,5,10")
    return tuple(ks)


def choice(*values: str) -> Callable[[str], str]:
    """A parser that takes one of ``values``, naming them all when it refuses."""
    allowed = ", ".join(values[:-1]) + " or " + values[-1]

    def parse(text: str) -> str:
        if text not in values:
            raise ValueError(f"must be {allowed}")
        return text

    return parse


def unit_float(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 2.0:
        raise ValueError("must be between 0 and 2")
    return value


def shard(text: str) -> tuple[int, int]:
    """``"2/3"`` -> ``(2, 3)``; raises ``ValueError`` unless it is ``I/N`` with 1 <= I <= N."""
    index, slash, total = text.partition("/")
    try:
        i, n = int(index), int(total)
    except ValueError:
        i = n = 0
    if not slash or not 1 <= i <= n:
        raise ValueError("must be I/N with 1 <= I <= N, e.g. 2/3")
    return i, n


def model_spec(text: str) -> str:
    """A ``--codegen-model`` spec with a provider's name as the providers are named:
    ``OpenAI:gpt-4o`` is ``openai:gpt-4o``, one model under one spec in records, caches and
    comparisons. The model's own name is kept as written (a server's names may differ by
    case); any other spec is as given."""
    from .models.providers import PROVIDERS

    provider, sep, name = text.partition(":")
    if sep and provider.strip().lower() in PROVIDERS:
        return f"{provider.strip().lower()}:{name}"
    return text
