"""Helpers the wire formats share to read a reply: reasoning out of the answer, token counts
shared between the samples of one response."""

from __future__ import annotations

import re
from typing import Any

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
