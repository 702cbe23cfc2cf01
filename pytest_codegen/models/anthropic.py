"""The Anthropic messages wire format."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .base import Completion, SamplingParams
from .http import APIError, HTTPModel
from .replies import join_reasoning, split_think, split_tokens
from .reply_size import MOST_STREAM_PARTS, StreamText, new_part
from .sse import StreamError, error_in

ANTHROPIC_VERSION = "2023-06-01"
#: Anthropic requires ``max_tokens``; this is sent when the parameters leave it unset.
ANTHROPIC_DEFAULT_MAX_TOKENS = 4096


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
        if self.streaming:
            body["stream"] = True
        headers = {
            "Content-Type": "application/json",
            "anthropic-version": ANTHROPIC_VERSION,
        }
        if self.api_key:
            headers["x-api-key"] = self.api_key
        return f"{self.base_url}/v1/messages", headers, body

    def _collect(self, events: Iterable[tuple[str, Any]], keep: StreamText) -> Any:
        # message_start (input usage), content_block_start/_delta per block index (text or
        # thinking), message_delta (stop reason, output usage so far), message_stop. An event
        # that changes none of these (a ping, an empty delta) is a keep-alive.
        message: dict[str, Any] = {}
        blocks: dict[int, dict[str, Any]] = {}
        pieces: dict[tuple[int, str], list[str]] = {}  # joined once at the end (openai.py)
        usage: dict[str, Any] = {}
        for event, data in events:
            error = error_in(data)
            if error is not None:
                raise error
            kind = data.get("type", event) if isinstance(data, dict) else event
            if kind == "message_start":
                message = keep.kept(data.get("message"), message) or {}
                usage.update(message.get("usage") or {})
            elif kind == "content_block_start":
                index = new_part(blocks, int(data.get("index", len(blocks))), "blocks")
                blocks[index] = keep.kept(dict(data.get("content_block") or {}), blocks.get(index))
            elif kind == "content_block_delta":
                index = new_part(blocks, int(data.get("index", 0)), "blocks")
                block = blocks.setdefault(index, {"type": "text"})
                delta = data.get("delta") or {}
                keep.kept(delta.get("partial_json"))  # a tool call's: progress, though not kept
                for field in ("text", "thinking"):
                    if isinstance(delta.get(field), str):
                        if (index, field) not in pieces:
                            pieces[index, field] = [block.get(field, "")]
                        pieces[index, field].append(keep(delta[field]))
            elif kind == "message_delta":
                stop = (data.get("delta") or {}).get("stop_reason")
                message["stop_reason"] = keep.kept(stop, message.get("stop_reason"))
                usage = keep.kept({**usage, **(data.get("usage") or {})}, usage)
                if len(usage) > MOST_STREAM_PARTS:
                    raise ValueError(f"a stream of more than {MOST_STREAM_PARTS} usage fields")
            elif kind == "message_stop":
                for (index, field), parts in pieces.items():
                    blocks[index][field] = "".join(parts)
                content = [blocks[i] for i in sorted(blocks)]
                return {**message, "content": content, "usage": usage}
        raise StreamError(f"stream from {self.provider.name} ended before the reply did")

    def _parse(self, data: Any, latency: float, n: int) -> list[Completion]:
        blocks = data.get("content") if isinstance(data, dict) else None
        if not isinstance(blocks, list):
            raise APIError(f"malformed response from {self.provider.name}: no 'content' list")
        texts = [b.get("text", "") for b in blocks if b.get("type") == "text"]
        thoughts = [b.get("thinking", "") for b in blocks if b.get("type") == "thinking"]
        answer, think = split_think("".join(texts))
        usage = data.get("usage") or {}
        return [
            Completion(
                text=answer,
                reasoning=join_reasoning(*thoughts, think),
                prompt_tokens=split_tokens(usage.get("input_tokens"), 1)[0],
                completion_tokens=split_tokens(usage.get("output_tokens"), 1)[0],
                latency_s=latency,
                finish_reason=data.get("stop_reason"),
            )
        ]
