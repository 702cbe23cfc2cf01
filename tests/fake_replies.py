"""The replies of the fake provider server, plain and streamed, as each real API sends them:
error bodies, whole replies, and streams event for event: OpenAI chat completion chunks (usage
in a last chunk when ``stream_options`` asks, then ``[DONE]``), Anthropic's message_start /
content_block_* / message_delta / message_stop, and Gemini's
``streamGenerateContent?alt=sse`` chunks.
"""

from __future__ import annotations

import json
import types
from typing import Any

# The reply to send when a reply function gave none (the fewer-choices fault).
_EMPTY = types.SimpleNamespace(text="", reasoning=None, finish_reason=None)


def pieces(text: str, count: int = 4) -> list[str]:
    """``text`` in ``count`` pieces that join back to it (some may be empty)."""
    size = max(1, -(-len(text) // count))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def event(data: Any, name: str | None = None) -> bytes:
    head = f"event: {name}\n" if name else ""
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {payload}\n\n".encode()


def openai_events(req: Any, replies: list[Any], usage: dict[str, int]) -> list[bytes]:
    base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": req.body["model"]}
    out = []
    for i, reply in enumerate(replies):
        out.append(event({**base, "choices": [{"index": i, "delta": {"role": "assistant"}}]}))
        if reply.reasoning is not None:
            for piece in pieces(reply.reasoning):
                delta = {"reasoning_content": piece}
                out.append(event({**base, "choices": [{"index": i, "delta": delta}]}))
        for piece in pieces(reply.text):
            out.append(event({**base, "choices": [{"index": i, "delta": {"content": piece}}]}))
        finish = {"index": i, "delta": {}, "finish_reason": reply.finish_reason or "stop"}
        out.append(event({**base, "choices": [finish]}))
    if (req.body.get("stream_options") or {}).get("include_usage"):
        out.append(event({**base, "choices": [], "usage": usage}))
    out.append(event("[DONE]"))
    return out


def anthropic_events(req: Any, reply: Any, usage: dict[str, int]) -> list[bytes]:
    message = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": req.body["model"],
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": usage["input_tokens"], "output_tokens": 1},
    }
    out = [event({"type": "message_start", "message": message}, "message_start")]
    index = 0
    if reply.reasoning is not None:
        start = {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking"}}
        out.append(event(start, "content_block_start"))
        for piece in pieces(reply.reasoning):
            delta = {"type": "thinking_delta", "thinking": piece}
            out.append(
                event(
                    {"type": "content_block_delta", "index": 0, "delta": delta},
                    "content_block_delta",
                )
            )
        signature = {"type": "signature_delta", "signature": "sig"}
        out.append(
            event(
                {"type": "content_block_delta", "index": 0, "delta": signature},
                "content_block_delta",
            )
        )
        out.append(event({"type": "content_block_stop", "index": 0}, "content_block_stop"))
        index = 1
    block = {"type": "text", "text": ""}
    out.append(
        event(
            {"type": "content_block_start", "index": index, "content_block": block},
            "content_block_start",
        )
    )
    out.append(event({"type": "ping"}, "ping"))
    for piece in pieces(reply.text):
        delta = {"type": "text_delta", "text": piece}
        out.append(
            event(
                {"type": "content_block_delta", "index": index, "delta": delta},
                "content_block_delta",
            )
        )
    out.append(event({"type": "content_block_stop", "index": index}, "content_block_stop"))
    stop = {"stop_reason": reply.finish_reason or "end_turn", "stop_sequence": None}
    out.append(
        event(
            {
                "type": "message_delta",
                "delta": stop,
                "usage": {"output_tokens": usage["output_tokens"]},
            },
            "message_delta",
        )
    )
    out.append(event({"type": "message_stop"}, "message_stop"))
    return out


def gemini_events(req: Any, replies: list[Any], usage: dict[str, int]) -> list[bytes]:
    partial = {"promptTokenCount": usage["promptTokenCount"]}
    out = []
    for i, reply in enumerate(replies):
        parts = [{"text": p, "thought": True} for p in pieces(reply.reasoning or "", 2)]
        parts = parts if reply.reasoning is not None else []
        parts += [{"text": p} for p in pieces(reply.text)]
        for part in parts:
            candidate = {"content": {"role": "model", "parts": [part]}, "index": i}
            out.append(event({"candidates": [candidate], "usageMetadata": partial}))
        last = {
            "content": {"role": "model", "parts": [{"text": ""}]},
            "finishReason": reply.finish_reason or "STOP",
            "index": i,
        }
        out.append(event({"candidates": [last], "usageMetadata": usage}))
    return out


def error_event(api: str) -> bytes:
    """The event an overloaded server sends in place of the rest of a stream."""
    if api == "anthropic":
        error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        return event(error, "error")
    if api == "gemini":
        return event({"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}})
    return event({"error": {"message": "The server is overloaded", "type": "server_error"}})


def words(text: str | None) -> int:
    return len((text or "").split())


def error_body(api: str, status: int, message: str) -> dict[str, Any]:
    if api == "anthropic":
        return {"type": "error", "error": {"type": "api_error", "message": message}}
    if api == "gemini":
        return {"error": {"code": status, "message": message, "status": "FAILED"}}
    return {"error": {"message": message, "type": "fake_error", "code": None}}


def openai_reply(req: Any, replies: list[Any]) -> dict[str, Any]:
    choices = []
    for i, reply in enumerate(replies):
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if reply.reasoning is not None:
            message["reasoning_content"] = reply.reasoning
        choices.append(
            {"index": i, "message": message, "finish_reason": reply.finish_reason or "stop"}
        )
    prompt = sum(words(m["content"]) for m in req.body["messages"])
    completion = sum(words(r.text) for r in replies)
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": req.body["model"],
        "choices": choices,
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def anthropic_reply(req: Any, replies: list[Any]) -> dict[str, Any]:
    reply = replies[0] if replies else _EMPTY
    content: list[dict[str, Any]] = []
    if reply.reasoning is not None:
        content.append({"type": "thinking", "thinking": reply.reasoning, "signature": "sig"})
    content.append({"type": "text", "text": reply.text})
    prompt = words(req.body.get("system")) + words(req.body["messages"][-1]["content"])
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": req.body["model"],
        "content": content,
        "stop_reason": reply.finish_reason or "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": prompt, "output_tokens": words(reply.text)},
    }


def gemini_reply(req: Any, replies: list[Any]) -> dict[str, Any]:
    candidates = []
    for i, reply in enumerate(replies):
        parts: list[dict[str, Any]] = []
        if reply.reasoning is not None:
            parts.append({"text": reply.reasoning, "thought": True})
        parts.append({"text": reply.text})
        candidates.append(
            {
                "index": i,
                "content": {"role": "model", "parts": parts},
                "finishReason": reply.finish_reason or "STOP",
            }
        )
    system = (req.body.get("systemInstruction") or {}).get("parts", [{}])[0].get("text")
    prompt = words(system) + words(req.user_text)
    completion = sum(words(r.text) for r in replies)
    return {
        "candidates": candidates,
        "usageMetadata": {
            "promptTokenCount": prompt,
            "candidatesTokenCount": completion,
            "totalTokenCount": prompt + completion,
        },
    }
