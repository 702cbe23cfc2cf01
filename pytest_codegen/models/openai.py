"""The OpenAI chat completions wire format, also spoken by the OpenAI-compatible servers
(Fireworks, DeepSeek, OpenRouter, Mistral, Together, vLLM, Ollama, ...)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .base import Completion, SamplingParams
from .http import APIError, HTTPModel
from .replies import join_reasoning, split_think, split_tokens
from .reply_size import StreamText, new_part
from .sse import StreamError, error_in


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
        if self.streaming:
            body["stream"] = True
            if p.stream_usage:
                body["stream_options"] = {"include_usage": True}
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return f"{self.base_url}/chat/completions", headers, body

    def _collect(self, events: Iterable[tuple[str, Any]], keep: StreamText) -> Any:
        # Chunks carry ``choices[].delta`` pieces by ``index``; usage comes in a last chunk
        # with no choices (asked for with ``stream_options``), and ``[DONE]`` ends it. A chunk
        # of no text, finish reason, new usage or tool call (a role alone) is a keep-alive.
        choices: dict[int, dict[str, Any]] = {}
        usage: Any = None
        for _event, chunk in events:
            if chunk is None:  # [DONE]
                return _folded(choices, usage)
            error = error_in(chunk)
            if error is not None:
                raise error
            usage = keep.kept(chunk.get("usage"), usage) or usage
            for part in chunk.get("choices") or ():
                # Pieces joined once at the end: adding each to the text so far copies it
                # (100,000 small deltas took seconds).
                choice = choices.setdefault(
                    new_part(choices, int(part.get("index", 0)), "choices"),
                    {"content": [], "reasoning": [], "refusal": [], "finish": None},
                )
                delta = part.get("delta") or {}
                choice["content"].append(keep(delta.get("content") or ""))
                choice["refusal"].append(keep(delta.get("refusal") or ""))
                thought = delta.get("reasoning_content") or delta.get("reasoning")
                choice["reasoning"].append(keep(thought) if isinstance(thought, str) else "")
                keep.kept(delta.get("tool_calls"))  # progress, though not kept (none offered)
                finish = keep.kept(part.get("finish_reason"), choice["finish"])
                choice["finish"] = finish or choice["finish"]
        if choices and all(c["finish"] for c in choices.values()):
            return _folded(choices, usage)  # a server that leaves out [DONE]
        raise StreamError(f"stream from {self.provider.name} ended before the reply did")

    def _parse(self, data: Any, latency: float, n: int) -> list[Completion]:
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list):
            raise APIError(f"malformed response from {self.provider.name}: no 'choices' list")
        choices = choices[:n]
        usage = data.get("usage") or {}
        prompt = split_tokens(usage.get("prompt_tokens"), len(choices))
        completion = split_tokens(usage.get("completion_tokens"), len(choices))
        out = []
        for i, choice in enumerate(choices):
            message = choice.get("message")
            if not isinstance(message, dict):
                raise APIError(
                    f"malformed response from {self.provider.name}: choice without 'message'"
                )
            content = message.get("content")
            if isinstance(content, list):  # some servers return content parts
                content = "".join(
                    part.get("text", "") for part in content if isinstance(part, dict)
                )
            if not content and isinstance(message.get("refusal"), str):
                content = message["refusal"]  # the model's answer, kept as such: it fails
            answer, think = split_think(content or "")
            reasoning = message.get("reasoning_content") or message.get("reasoning")
            out.append(
                Completion(
                    text=answer,
                    reasoning=join_reasoning(
                        reasoning if isinstance(reasoning, str) else None, think
                    ),
                    prompt_tokens=prompt[i],
                    completion_tokens=completion[i],
                    latency_s=latency,
                    finish_reason=choice.get("finish_reason"),
                )
            )
        return out


def _folded(choices: dict[int, dict[str, Any]], usage: Any) -> dict[str, Any]:
    """A streamed reply in the shape of a non-streamed one."""
    return {
        "choices": [
            {
                "index": i,
                "message": {
                    "role": "assistant",
                    "content": "".join(c["content"]),
                    "reasoning_content": "".join(c["reasoning"]) or None,
                    "refusal": "".join(c["refusal"]) or None,
                },
                "finish_reason": c["finish"],
            }
            for i, c in sorted(choices.items())
        ],
        "usage": usage or {},
    }
