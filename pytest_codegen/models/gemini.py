"""The Gemini generateContent wire format."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .base import Completion, SamplingParams
from .http import APIError, HTTPModel
from .replies import join_reasoning, split_think, split_tokens
from .reply_size import StreamText, new_part
from .sse import StreamError, error_in


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
        if self.streaming:
            return f"{self.base_url}/models/{model}:streamGenerateContent?alt=sse", headers, body
        return f"{self.base_url}/models/{model}:generateContent", headers, body

    def _collect(self, events: Iterable[tuple[str, Any]], keep: StreamText) -> Any:
        # Each event is a GenerateContentResponse holding the next parts of each candidate
        # (by ``index``); the last one of a candidate has its finishReason, and usage comes
        # with the chunks (the last has the totals). A chunk of no text, finish reason, new
        # usage or function call is a keep-alive.
        candidates: dict[int, dict[str, Any]] = {}
        usage: Any = None
        for _event, chunk in events:
            error = error_in(chunk)
            if error is not None:
                raise error
            usage = keep.kept(chunk.get("usageMetadata"), usage) or usage
            for part in chunk.get("candidates") or ():
                got = candidates.setdefault(  # pieces joined once at the end (see openai.py)
                    new_part(candidates, int(part.get("index", 0)), "candidates"),
                    {"text": [], "thought": [], "finish": None},
                )
                for piece in (part.get("content") or {}).get("parts") or ():
                    field = "thought" if piece.get("thought") else "text"
                    got[field].append(keep(piece.get("text", "")))
                    keep.kept(piece.get("functionCall"))  # progress, though not kept
                got["finish"] = keep.kept(part.get("finishReason"), got["finish"]) or got["finish"]
            if chunk.get("candidates") is None and (chunk.get("promptFeedback") or {}).get(
                "blockReason"
            ):
                return chunk  # a blocked prompt: _parse says so
        if not candidates or not all(c["finish"] for c in candidates.values()):
            raise StreamError(f"stream from {self.provider.name} ended before the reply did")
        texts = {i: ("".join(c["thought"]), "".join(c["text"])) for i, c in candidates.items()}
        return {
            "candidates": [
                {
                    "index": i,
                    "content": {
                        "role": "model",
                        "parts": [{"text": thought, "thought": True}] * bool(thought)
                        + [{"text": text}],
                    },
                    "finishReason": candidates[i]["finish"],
                }
                for i, (thought, text) in sorted(texts.items())
            ],
            "usageMetadata": usage or {},
        }

    def _parse(self, data: Any, latency: float, n: int) -> list[Completion]:
        candidates = data.get("candidates") if isinstance(data, dict) else None
        if candidates is None and isinstance(data, dict):
            blocked = (data.get("promptFeedback") or {}).get("blockReason")
            if blocked:
                raise APIError(f"{self.provider.name} blocked the prompt: {blocked}")
        if not isinstance(candidates, list):
            raise APIError(f"malformed response from {self.provider.name}: no 'candidates' list")
        candidates = candidates[:n]
        usage = data.get("usageMetadata") or {}
        output = usage.get("candidatesTokenCount")
        if isinstance(output, int) and isinstance(usage.get("thoughtsTokenCount"), int):
            output += usage["thoughtsTokenCount"]
        prompt = split_tokens(usage.get("promptTokenCount"), len(candidates))
        completion = split_tokens(output, len(candidates))
        out = []
        for i, candidate in enumerate(candidates):
            parts = (candidate.get("content") or {}).get("parts") or []
            texts = [p.get("text", "") for p in parts if not p.get("thought")]
            thoughts = [p.get("text", "") for p in parts if p.get("thought")]
            answer, think = split_think("".join(texts))
            out.append(
                Completion(
                    text=answer,
                    reasoning=join_reasoning(*thoughts, think),
                    prompt_tokens=prompt[i],
                    completion_tokens=completion[i],
                    latency_s=latency,
                    finish_reason=candidate.get("finishReason"),
                )
            )
        return out
