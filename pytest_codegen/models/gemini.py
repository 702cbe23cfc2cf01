"""The Gemini generateContent wire format."""

from __future__ import annotations

from typing import Any

from .base import Completion, SamplingParams
from .http import APIError, HTTPModel, join_reasoning, split_think, split_tokens


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
        return f"{self.base_url}/models/{model}:generateContent", headers, body

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
