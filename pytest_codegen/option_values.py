"""Parsers of option values that are more than a type: each takes the text given and returns
the value, or raises ``ValueError`` saying what the value must be."""

from __future__ import annotations

import datetime


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
