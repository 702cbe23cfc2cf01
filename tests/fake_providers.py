"""Fake model APIs on 127.0.0.1: OpenAI chat completions, Anthropic messages, Gemini.

One threaded HTTP server answers all three wire formats, checks every request the way the
real API would (path, headers, body fields, and the rules of today's models: see
``fake_rules``), records it, and replies with canned text, streamed as server-sent events when
the request asks for it (``fake_replies``; ``chunk_delay_s`` spaces the events). Faults can be
scripted to hit the next requests in order: an HTTP status (with ``Retry-After`` or
``retry-after-ms``), any status and body, a response slower than the client's timeout,
malformed JSON, a dropped connection, fewer choices than ``n``, a reply without the expected
fields, a body or a stream cut off, a stream that ends in an error event, given bytes
streamed, a reply of more bytes than a client should read (a body, a stream that goes on, one
line), sent as it is read. It counts the requests in flight (``peak_in_flight``), and
answers 429 at once to those beyond ``max_in_flight`` when set (a provider that limits
concurrency). Two holds make a test wait for states instead of timing them:
``gather_in_flight`` holds the first requests until that many are in flight at once (a client
allowed that many reaches it however slowly it gets going), and ``hold_after`` holds every
request past the first so many until ``release()`` (a run stopped meanwhile is stopped
midway).

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
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import fake_replies
from fake_limits import BucketLimit
from fake_replies import anthropic_reply, error_body, gemini_reply, openai_reply
from fake_rules import BadRequest, Refusal, check_request, refusal

_GEMINI_PATH = re.compile(
    r"^/v1beta/models/([^/:]+):(?:generateContent|streamGenerateContent\?alt=sse)$"
)


@dataclasses.dataclass
class Recorded:
    """One request as the server received it."""

    api: str  # "openai", "anthropic", "gemini" or "unknown"
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any
    time: float  # time.monotonic() on arrival
    error: str | None = None  # why the server rejected it, if it did
    in_flight: int = 0  # requests in flight on its arrival, itself included
    answered: bool = False  # no longer counted in flight
    status: int = 0  # of the answer, once sent
    headers_out: dict[str, str] = dataclasses.field(default_factory=dict)  # rate-limit headers

    @property
    def n(self) -> int:
        """How many samples the request asked for."""
        if not isinstance(self.body, dict):
            return 1
        if self.api == "gemini":
            return int((self.body.get("generationConfig") or {}).get("candidateCount", 1))
        return int(self.body.get("n", 1)) if self.api == "openai" else 1

    @property
    def streamed(self) -> bool:
        """Whether the request asked for a streamed reply."""
        if self.api == "gemini":
            return ":streamGenerateContent" in self.path
        return isinstance(self.body, dict) and self.body.get("stream") is True

    @property
    def model(self) -> str:
        if self.api == "gemini":
            match = _GEMINI_PATH.match(self.path)
            return match.group(1) if match else ""
        return str(self.body.get("model", "")) if isinstance(self.body, dict) else ""

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

    # status | answer | events | keep_alive | slow | malformed | truncated | drop | fewer |
    # missing | stream_error | cut | huge
    kind: str
    status: int = 500
    headers: dict[str, str] = dataclasses.field(default_factory=dict)
    message: str = "something went wrong"
    delay_s: float = 0.0
    choices: int = 1
    body: Any = None

    @classmethod
    def http(
        cls,
        status: int,
        *,
        retry_after: str | None = None,
        retry_after_ms: str | None = None,
        message: str | None = None,
    ) -> Fault:
        headers = {"Retry-After": retry_after} if retry_after is not None else {}
        if retry_after_ms is not None:
            headers["retry-after-ms"] = retry_after_ms
        return cls("status", status=status, headers=headers, message=message or f"fake {status}")

    @classmethod
    def answer(cls, status: int, body: Any, headers: dict[str, str] | None = None) -> Fault:
        """Answer with exactly this status and JSON body (a real API's error, say)."""
        return cls("answer", status=status, body=body, headers=headers or {})

    @classmethod
    def stream_error(cls) -> Fault:
        """Stream half the reply, then the format's "overloaded" error event."""
        return cls("stream_error")

    @classmethod
    def cut(cls) -> Fault:
        """Stream half the reply, then drop the connection."""
        return cls("cut")

    @classmethod
    def events(cls, *payloads: bytes) -> Fault:
        """Stream exactly these bytes, a chunk each, as a 200 event stream, and end it."""
        return cls("events", body=payloads)

    @classmethod
    def keep_alive(cls, payload: bytes, every_s: float, first: tuple[bytes, ...] = ()) -> Fault:
        """Open a 200 event stream, send the events ``first`` (none: a stream of keep-alives
        only), then ``payload`` (a comment, an event that adds nothing) every ``every_s``,
        until the client hangs up: the stream never ends."""
        return cls("keep_alive", body=(first, payload), delay_s=every_s)

    @classmethod
    def huge(cls, shape: str, mib: int, status: int = 200) -> Fault:
        """A reply of ``mib`` MiB and a little more, written as the client reads it, until
        it hangs up: ``plain``, a JSON body; ``stream``, an event stream repeating one event of
        the reply, a MiB of its text each; ``line``, an event stream of one endless line."""
        return cls("huge", status=status, body=shape, choices=mib)

    @classmethod
    def slow(cls, delay_s: float) -> Fault:
        return cls("slow", delay_s=delay_s)

    @classmethod
    def malformed(cls) -> Fault:
        return cls("malformed")

    @classmethod
    def truncated(cls) -> Fault:
        """Answer 200 with a JSON body, streamed or not, and hang up part-way through it."""
        return cls("truncated")

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


def connect(fake: FakeProviders, spec: str, **kwargs: Any) -> Any:
    """The plugin's model for ``PROVIDER:MODEL`` talking to ``fake``: no key from the
    environment, fast backoff (both can be overridden)."""
    from pytest_codegen.models.connect import make_provider_model

    api = spec.split(":")[0]
    url = {"anthropic": fake.anthropic_url, "gemini": fake.gemini_url}.get(api, fake.openai_url)
    kwargs.setdefault("env", {})
    kwargs.setdefault("backoff_s", 0.01)
    return make_provider_model(spec, base_url=url, **kwargs)


def default_reply(request: Recorded, index: int) -> str:
    return f"reply to {request.user_text!r} #{index}"


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
        fault: Callable[[Recorded], Fault | None] | None = None,
        limit: BucketLimit | None = None,
    ) -> None:
        self.reply = reply or default_reply
        #: A rate limit of requests and tokens (``fake_limits``), answered as providers do.
        self.limit = limit
        #: Decides a fault for a request when none is scripted (by its content).
        self.fault = fault
        self.latency_s = latency_s
        #: Seconds between two events of a streamed reply.
        self.chunk_delay_s = 0.0
        #: Sent every ``keep_alive_s`` (when set) while a streamed reply waits between two
        #: events, as a server or proxy keeps a quiet stream open.
        self.keep_alive = b": ping\n\n"
        self.keep_alive_s: float | None = None
        #: Rules beyond those of the real APIs' models (see ``fake_rules.Refusal``).
        self.refusals: list[Refusal] = []
        #: Replies sent in full: what a real provider would bill.
        self.completed = 0
        #: Connections accepted: a client that reuses its connections opens few.
        self.connections = 0
        #: Requests in flight now, and the most there were at once.
        self.in_flight = self.peak_in_flight = 0
        #: Requests arriving while this many are in flight are answered 429 at once, with
        #: ``Retry-After: throttle_retry_after``; ``throttled`` counts them.
        self.max_in_flight: int | None = None
        self.throttle_retry_after = "0.05"
        self.throttled = 0
        #: The first requests wait until this many are in flight at once; once that happened
        #: (or after ``gather_timeout_s``, a hang guard) no request waits for it any more. The
        #: very first request is answered at once: a model that may refuse a whole run sends
        #: it alone and waits for its answer before it sends more.
        self.gather_in_flight: int | None = None
        self.gather_timeout_s = 60.0
        self._gathered = False
        #: Requests after the first ``hold_after`` wait, before they are answered, until
        #: ``release()``; ``held`` counts those waiting now.
        self.hold_after: int | None = None
        self.held = 0
        self._released = False
        self.keys = {"openai": openai_key, "anthropic": anthropic_key, "gemini": gemini_key}
        self.requests: list[Recorded] = []
        self._arrived = 0  # requests ever received (``requests`` may be cleared)
        self._faults: collections.deque[Fault] = collections.deque()
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # requests in flight, holds
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def __enter__(self) -> FakeProviders:
        fake = self

        class Handler(_Handler):
            server_state = fake

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()  # wakes handlers sleeping in a slow fault
        with self._changed:  # ... and those held
            self._changed.notify_all()
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

    def release(self) -> None:
        """Answer the requests held by ``hold_after``, and hold none from now on."""
        with self._changed:
            self._released = True
            self._changed.notify_all()

    def _record(self, recorded: Recorded) -> int:
        """Count ``recorded`` in; returns how many requests arrived before it."""
        with self._lock:
            arrived = self._arrived
            self._arrived += 1
            self.requests.append(recorded)
            self.in_flight += 1
            recorded.in_flight = self.in_flight
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            if self.gather_in_flight is not None and self.in_flight >= self.gather_in_flight:
                self._gathered = True
                self._changed.notify_all()
            return arrived

    def _hold(self, arrived: int) -> None:
        """Wait as ``gather_in_flight`` and ``hold_after`` say, for the request that arrived
        after ``arrived`` others (counted in flight meanwhile)."""
        with self._changed:
            if self.gather_in_flight is not None and arrived > 0 and not self._gathered:
                if not self._changed.wait_for(
                    lambda: self._gathered or self._stop.is_set(), self.gather_timeout_s
                ):
                    self._gathered = True  # never reached: the peak will say so
            if self.hold_after is not None and arrived >= self.hold_after and not self._released:
                self.held += 1
                self._changed.wait_for(lambda: self._released or self._stop.is_set())
                self.held -= 1

    def _over_limit(self, recorded: Recorded) -> bool:
        with self._lock:
            over = self.max_in_flight is not None and recorded.in_flight > self.max_in_flight
            self.throttled += over
            return over

    def _done(self, recorded: Recorded) -> None:
        with self._lock:
            if not recorded.answered:
                recorded.answered = True
                self.in_flight -= 1

    def _next_fault(self) -> Fault | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._stop.wait(seconds)


class _Server(ThreadingHTTPServer):
    # A provider's listen queue, not socketserver's 5: a client opening a hundred connections
    # at once would otherwise see most of them dropped and retried a second later (TCP's
    # first SYN retransmission), a wait no real API imposes.
    request_queue_size = 1024

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that hung up
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the real APIs
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed ACK
    server_state: FakeProviders
    recorded: Recorded  # the request being answered

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:  # once per connection, however many requests it carries
        super().setup()
        with self.server_state._lock:
            self.server_state.connections += 1

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
        recorded = self.recorded = Recorded(api, path, headers, body, time.monotonic())
        arrived = fake._record(recorded)
        try:
            if fake._over_limit(recorded):
                recorded.error = "over the concurrency limit"
                retry = {"Retry-After": fake.throttle_retry_after}
                self._send_json(429, error_body(api, 429, "too many requests"), retry)
                return
            if fake.limit is not None:
                admitted, recorded.headers_out, throttled = fake.limit.admit(
                    api, body, recorded.time
                )
                if not admitted:
                    recorded.error = "over the rate limit"
                    self._send_json(429, throttled, recorded.headers_out)
                    return
            fake._hold(arrived)
            self._answer(recorded)
        finally:
            fake._done(recorded)

    def _answer(self, recorded: Recorded) -> None:
        fake, api = self.server_state, recorded.api
        fake._sleep(fake.latency_s)
        try:
            check_request(recorded, fake.keys.get(api))
        except BadRequest as e:
            recorded.error = str(e)
            status = 404 if api == "unknown" else 401 if "key" in str(e) else 400
            self._send_json(status, error_body(api, status, str(e)))
            return
        refused = refusal(api, recorded.body, recorded.model, fake.refusals)
        if refused is not None:
            recorded.error = json.dumps(refused[1])
            self._send_json(*refused)
            return
        fault = fake._next_fault()  # only valid requests consume the script
        if fault is None and fake.fault is not None:
            fault = fake.fault(recorded)
        if fault is not None:
            if fault.kind == "answer":
                self._send_json(fault.status, fault.body, fault.headers)
                return
            if fault.kind == "status":
                self._send_json(
                    fault.status, error_body(api, fault.status, fault.message), fault.headers
                )
                return
            if fault.kind == "huge":
                self._huge(recorded, fault)
                return
            if fault.kind == "events":
                self._open_stream(recorded)
                fake._done(recorded)
                for payload in fault.body:
                    self._chunk(payload)
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
                return
            if fault.kind == "keep_alive":
                self._open_stream(recorded)
                fake._done(recorded)
                first, payload = fault.body
                try:
                    for event in first:
                        self._chunk(event)
                    while not fake._stop.is_set():
                        self._chunk(payload)
                        fake._sleep(fault.delay_s)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up on it
                self.close_connection = True  # the stream never ended
                return
            if fault.kind == "slow":
                fake._sleep(fault.delay_s)
            elif fault.kind == "malformed":
                self._send_raw(200, b'{"choices": [ this is not json', "application/json")
                return
            elif fault.kind == "truncated":
                payload = b'{"choices": [{"index": 0, "message": {"content": "def f'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(2 * len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                self.wfile.flush()
                self._hang_up()
                return
            elif fault.kind == "drop":
                self._hang_up()
                return
            elif fault.kind == "missing":
                self._send_json(200, {"id": "resp-1", "object": "unexpected"})
                return
        n = fault.choices if fault is not None and fault.kind == "fewer" else recorded.n
        replies = []
        for i in range(n):
            reply = fake.reply(recorded, i)
            replies.append(reply if isinstance(reply, Reply) else Reply(str(reply)))
        builder = {"openai": openai_reply, "anthropic": anthropic_reply}.get(api, gemini_reply)
        try:
            if recorded.streamed:
                self._stream(recorded, replies, fault.kind if fault is not None else None)
            else:
                with fake._lock:
                    fake.completed += 1
                self._send_json(200, builder(recorded, replies), recorded.headers_out)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout): nothing to answer

    def _events(self, req: Recorded, replies: list[Reply]) -> list[bytes]:
        if req.api == "openai":
            usage = openai_reply(req, replies)["usage"]
            return fake_replies.openai_events(req, replies, usage)
        if req.api == "anthropic":
            reply = replies[0] if replies else Reply("")
            usage = anthropic_reply(req, [reply])["usage"]
            return fake_replies.anthropic_events(req, reply, usage)
        usage = gemini_reply(req, replies)["usageMetadata"]
        return fake_replies.gemini_events(req, replies, usage)

    def _stream(self, req: Recorded, replies: list[Reply], fault: str | None) -> None:
        fake = self.server_state
        events = self._events(req, replies)
        if fault in ("stream_error", "cut"):
            events = events[: len(events) // 2]
        self._open_stream(req)
        for k, payload in enumerate(events):
            if fault is None and k == len(events) - 1:
                with fake._lock:  # counted before the client can see the reply's end
                    fake.completed += 1
                fake._done(req)  # the client may send its next request once it sees it
            self._chunk(payload)
            self._pause(fake.chunk_delay_s)
        if fault == "cut":
            self._hang_up()
            return
        if fault == "stream_error":
            fake._done(req)
            self._chunk(fake_replies.error_event(req.api))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _huge(self, req: Recorded, fault: Fault) -> None:
        """Answer as ``Fault.huge`` says."""
        shape, mib = fault.body, fault.choices
        block = b"x" * (1 << 20)
        write = self.wfile.write
        try:
            if shape == "plain":
                head, tail = b'{"choices": [{"index": 0, "message": {"content": "', b'"}}]}'
                self.send_response(fault.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(head) + mib * len(block) + len(tail)))
                self.end_headers()
            else:
                self._open_stream(req)
                write = self._chunk
            self.server_state._done(req)
            if shape == "stream":  # 4 MiB of text come in 4 events: the middle one repeats
                events = self._events(req, [Reply("x" * (4 << 20))] * req.n)
                block = events[len(events) // 2]
            else:
                write(head if shape == "plain" else b'data: {"choices": [{"delta": {"content": "')
            for _ in range(mib):
                write(block)
            if shape == "plain":
                write(tail)
            else:
                self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client read what it would and hung up

    def _open_stream(self, req: Recorded) -> None:
        self.send_response(200)
        req.status = 200
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in req.headers_out.items():
            self.send_header(name, value)
        self.end_headers()

    def _pause(self, seconds: float) -> None:
        """Wait ``seconds`` within a stream, sending keep-alives meanwhile if asked to."""
        fake = self.server_state
        end, every = time.monotonic() + seconds, fake.keep_alive_s
        while every is not None and time.monotonic() + every < end and not fake._stop.is_set():
            fake._sleep(every)
            self._chunk(fake.keep_alive)
        fake._sleep(end - time.monotonic())

    def _hang_up(self) -> None:
        self.server_state._done(self.recorded)  # before the client can see it and retry
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)

    def _chunk(self, payload: bytes) -> None:
        self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
        self.wfile.flush()

    # -- writing

    def _send_json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(data).encode("utf-8"), "application/json", headers)

    def _send_raw(
        self, status: int, payload: bytes, ctype: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.recorded.status = status
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.server_state._done(self.recorded)  # before the body: the client waits for it
        self.wfile.write(payload)
