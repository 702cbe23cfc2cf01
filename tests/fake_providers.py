"""Fake model APIs on 127.0.0.1: OpenAI chat completions, Anthropic messages, Gemini.

One threaded HTTP server answers all three wire formats, checks every request the way the
real API would (path, headers, body fields), records it, and replies with canned text. Faults
can be scripted to hit the next requests in order: an HTTP status (with ``Retry-After``), a
response slower than the client's timeout, malformed JSON, a dropped connection, fewer
choices than ``n``, or a reply without the expected fields.

    with FakeProviders(reply=lambda req, i: "def f(): pass") as fake:
        fake.script(Fault.http(429, retry_after="0.2"))
        model = make_provider_model("vllm:m", base_url=fake.openai_url)
"""

from __future__ import annotations

import collections
import dataclasses
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OPENAI_FIELDS = frozenset(
    {
        "model",
        "messages",
        "n",
        "temperature",
        "top_p",
        "top_k",
        "max_tokens",
        "max_completion_tokens",
        "presence_penalty",
        "frequency_penalty",
        "seed",
        "random_seed",
        "stop",
        "stream",
    }
)
ANTHROPIC_FIELDS = frozenset(
    {"model", "max_tokens", "messages", "system", "temperature", "top_p", "top_k", "thinking"}
)
GEMINI_CONFIG_FIELDS = frozenset(
    {
        "temperature",
        "topP",
        "topK",
        "candidateCount",
        "maxOutputTokens",
        "presencePenalty",
        "frequencyPenalty",
        "seed",
        "stopSequences",
    }
)
_GEMINI_PATH = re.compile(r"^/v1beta/models/([^/:]+):generateContent$")
_NUMBER = (int, float)


@dataclasses.dataclass
class Recorded:
    """One request as the server received it."""

    api: str  # "openai", "anthropic", "gemini" or "unknown"
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any
    time: float  # time.monotonic() on arrival
    error: str | None = None  # why the server rejected it, if it did

    @property
    def n(self) -> int:
        """How many samples the request asked for."""
        if not isinstance(self.body, dict):
            return 1
        if self.api == "gemini":
            return int((self.body.get("generationConfig") or {}).get("candidateCount", 1))
        return int(self.body.get("n", 1)) if self.api == "openai" else 1

    @property
    def user_text(self) -> str:
        body = self.body if isinstance(self.body, dict) else {}
        if self.api == "gemini":
            return body["contents"][-1]["parts"][0]["text"]
        return body["messages"][-1]["content"]


@dataclasses.dataclass
class Reply:
    """A canned reply; a reply function may also return a plain string."""

    text: str
    reasoning: str | None = None  # sent the way each API sends reasoning
    finish_reason: str | None = None


@dataclasses.dataclass
class Fault:
    """What goes wrong with one request."""

    kind: str  # status | slow | malformed | drop | fewer | missing
    status: int = 500
    headers: dict[str, str] = dataclasses.field(default_factory=dict)
    message: str = "something went wrong"
    delay_s: float = 0.0
    choices: int = 1

    @classmethod
    def http(
        cls, status: int, *, retry_after: str | None = None, message: str | None = None
    ) -> Fault:
        headers = {"Retry-After": retry_after} if retry_after is not None else {}
        return cls("status", status=status, headers=headers, message=message or f"fake {status}")

    @classmethod
    def slow(cls, delay_s: float) -> Fault:
        return cls("slow", delay_s=delay_s)

    @classmethod
    def malformed(cls) -> Fault:
        return cls("malformed")

    @classmethod
    def drop(cls) -> Fault:
        return cls("drop")

    @classmethod
    def fewer(cls, choices: int) -> Fault:
        return cls("fewer", choices=choices)

    @classmethod
    def missing(cls) -> Fault:
        return cls("missing")


ReplyFn = Callable[[Recorded, int], "str | Reply"]


def default_reply(request: Recorded, index: int) -> str:
    return f"reply to {request.user_text!r} #{index}"


class _BadRequest(Exception):
    pass


class FakeProviders:
    """The fake server; use as a context manager. It listens on an OS-chosen port."""

    def __init__(
        self,
        reply: ReplyFn | None = None,
        *,
        latency_s: float = 0.0,
        openai_key: str | None = "sk-test",
        anthropic_key: str | None = "ak-test",
        gemini_key: str | None = "gk-test",
    ) -> None:
        self.reply = reply or default_reply
        self.latency_s = latency_s
        self.keys = {"openai": openai_key, "anthropic": anthropic_key, "gemini": gemini_key}
        self.requests: list[Recorded] = []
        self._faults: collections.deque[Fault] = collections.deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def __enter__(self) -> FakeProviders:
        fake = self

        class Handler(_Handler):
            server_state = fake

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()  # wakes handlers sleeping in a slow fault
        assert self._server is not None and self._thread is not None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_url(self) -> str:
        return self.url

    @property
    def gemini_url(self) -> str:
        return f"{self.url}/v1beta"

    # -- scripting and inspection

    def script(self, *faults: Fault) -> None:
        """Queue faults; each of the next requests takes one, in order."""
        with self._lock:
            self._faults.extend(faults)

    def count(self, api: str | None = None) -> int:
        with self._lock:
            return sum(1 for r in self.requests if api is None or r.api == api)

    def _record(self, recorded: Recorded) -> None:
        with self._lock:
            self.requests.append(recorded)

    def _next_fault(self) -> Fault | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._stop.wait(seconds)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the real APIs
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed ACK
    server_state: FakeProviders

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        fake = self.server_state
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        headers = {k.lower(): v for k, v in self.headers.items()}
        path = self.path
        api = (
            "openai"
            if path.endswith("/chat/completions")
            else "anthropic"
            if path == "/v1/messages"
            else "gemini"
            if _GEMINI_PATH.match(path)
            else "unknown"
        )
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        recorded = Recorded(api, path, headers, body, time.monotonic())
        fake._record(recorded)
        fake._sleep(fake.latency_s)
        try:
            self._validate(recorded, fake.keys.get(api))
        except _BadRequest as e:
            recorded.error = str(e)
            status = 404 if api == "unknown" else 401 if "key" in str(e) else 400
            self._send_json(status, _error_body(api, status, str(e)))
            return
        fault = fake._next_fault()  # only valid requests consume the script
        if fault is not None:
            if fault.kind == "status":
                self._send_json(
                    fault.status, _error_body(api, fault.status, fault.message), fault.headers
                )
                return
            if fault.kind == "slow":
                fake._sleep(fault.delay_s)
            elif fault.kind == "malformed":
                self._send_raw(200, b'{"choices": [ this is not json', "application/json")
                return
            elif fault.kind == "drop":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            elif fault.kind == "missing":
                self._send_json(200, {"id": "resp-1", "object": "unexpected"})
                return
        n = fault.choices if fault is not None and fault.kind == "fewer" else recorded.n
        replies = []
        for i in range(n):
            reply = fake.reply(recorded, i)
            replies.append(reply if isinstance(reply, Reply) else Reply(str(reply)))
        builder = {"openai": _openai_reply, "anthropic": _anthropic_reply}.get(api, _gemini_reply)
        try:
            self._send_json(200, builder(recorded, replies))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout): nothing to answer

    # -- validation, as strict as the real APIs

    def _validate(self, req: Recorded, key: str | None) -> None:
        if req.api == "unknown":
            raise _BadRequest(f"no such endpoint: {req.path}")
        if "application/json" not in req.headers.get("content-type", ""):
            raise _BadRequest("content-type must be application/json")
        body = req.body
        if not isinstance(body, dict):
            raise _BadRequest("body must be a JSON object")
        if req.api == "openai":
            if key is not None and req.headers.get("authorization") != f"Bearer {key}":
                raise _BadRequest("invalid api key")
            unknown = sorted(set(body) - OPENAI_FIELDS)
            if unknown:
                raise _BadRequest(f"Unrecognized request argument supplied: {unknown[0]}")
            _need(isinstance(body.get("model"), str) and body["model"], "model is required")
            _messages(body.get("messages"), roles=("system", "user"))
            _need("n" not in body or _positive_int(body["n"]), "n must be a positive integer")
            for name in ("temperature", "top_p", "presence_penalty", "frequency_penalty"):
                _need(name not in body or _number(body[name]), f"{name} must be a number")
        elif req.api == "anthropic":
            if key is not None and req.headers.get("x-api-key") != key:
                raise _BadRequest("invalid x-api-key")
            _need(req.headers.get("anthropic-version") == "2023-06-01", "anthropic-version")
            unknown = sorted(set(body) - ANTHROPIC_FIELDS)
            if unknown:
                raise _BadRequest(f"{unknown[0]}: Extra inputs are not permitted")
            _need(isinstance(body.get("model"), str) and body["model"], "model: Field required")
            _need(_positive_int(body.get("max_tokens")), "max_tokens: Field required")
            _messages(body.get("messages"), roles=("user",))
            _need("system" not in body or isinstance(body["system"], str), "system: str")
        else:
            if key is not None and req.headers.get("x-goog-api-key") != key:
                raise _BadRequest("API key not valid")
            unknown = sorted(set(body) - {"contents", "systemInstruction", "generationConfig"})
            if unknown:
                raise _BadRequest(f'Invalid JSON payload received. Unknown name "{unknown[0]}"')
            contents = body.get("contents")
            _need(isinstance(contents, list) and contents, "contents is required")
            for content in contents:
                _need(content.get("role") in ("user", "model"), "content role")
                _parts(content.get("parts"))
            if "systemInstruction" in body:
                _parts(body["systemInstruction"].get("parts"))
            config = body.get("generationConfig", {})
            _need(isinstance(config, dict), "generationConfig must be an object")
            unknown = sorted(set(config) - GEMINI_CONFIG_FIELDS)
            if unknown:
                raise _BadRequest(f'Unknown name "{unknown[0]}" at generation_config')
            count = config.get("candidateCount", 1)
            _need(_positive_int(count) and count <= 8, "candidateCount must be 1..8")

    # -- writing

    def _send_json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(data).encode("utf-8"), "application/json", headers)

    def _send_raw(
        self, status: int, payload: bytes, ctype: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)


def _need(ok: Any, message: str) -> None:
    if not ok:
        raise _BadRequest(message)


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _number(value: Any) -> bool:
    return isinstance(value, _NUMBER) and not isinstance(value, bool)


def _messages(messages: Any, roles: tuple[str, ...]) -> None:
    _need(isinstance(messages, list) and messages, "messages is required")
    for message in messages:
        _need(isinstance(message, dict), "a message must be an object")
        _need(message.get("role") in roles, f"unexpected role {message.get('role')!r}")
        _need(isinstance(message.get("content"), str), "content must be a string")
    _need(messages[-1]["role"] == "user", "the last message must be the user's")


def _parts(parts: Any) -> None:
    _need(isinstance(parts, list) and parts, "parts is required")
    for part in parts:
        _need(isinstance(part, dict) and isinstance(part.get("text"), str), "part.text")


def _words(text: str | None) -> int:
    return len((text or "").split())


def _error_body(api: str, status: int, message: str) -> dict[str, Any]:
    if api == "anthropic":
        return {"type": "error", "error": {"type": "api_error", "message": message}}
    if api == "gemini":
        return {"error": {"code": status, "message": message, "status": "FAILED"}}
    return {"error": {"message": message, "type": "fake_error", "code": None}}


def _openai_reply(req: Recorded, replies: list[Reply]) -> dict[str, Any]:
    choices = []
    for i, reply in enumerate(replies):
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if reply.reasoning is not None:
            message["reasoning_content"] = reply.reasoning
        choices.append(
            {"index": i, "message": message, "finish_reason": reply.finish_reason or "stop"}
        )
    prompt = sum(_words(m["content"]) for m in req.body["messages"])
    completion = sum(_words(r.text) for r in replies)
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


def _anthropic_reply(req: Recorded, replies: list[Reply]) -> dict[str, Any]:
    reply = replies[0] if replies else Reply("")
    content: list[dict[str, Any]] = []
    if reply.reasoning is not None:
        content.append({"type": "thinking", "thinking": reply.reasoning, "signature": "sig"})
    content.append({"type": "text", "text": reply.text})
    prompt = _words(req.body.get("system")) + _words(req.body["messages"][-1]["content"])
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": req.body["model"],
        "content": content,
        "stop_reason": reply.finish_reason or "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": prompt, "output_tokens": _words(reply.text)},
    }


def _gemini_reply(req: Recorded, replies: list[Reply]) -> dict[str, Any]:
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
    prompt = _words(system) + _words(req.user_text)
    completion = sum(_words(r.text) for r in replies)
    return {
        "candidates": candidates,
        "usageMetadata": {
            "promptTokenCount": prompt,
            "candidatesTokenCount": completion,
            "totalTokenCount": prompt + completion,
        },
    }
