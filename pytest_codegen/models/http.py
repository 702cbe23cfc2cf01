"""The HTTP transport every provider model shares, in plain ``requests``: no vendor SDKs.

:class:`HTTPModel` posts the requests its wire-format subclasses build
(:mod:`~pytest_codegen.models.openai`, :mod:`~pytest_codegen.models.anthropic`,
:mod:`~pytest_codegen.models.gemini`) and hands them the replies to parse, streamed
(:mod:`~pytest_codegen.models.sse`) where the provider supports it.

API failures never raise: the affected samples come back as ``Completion(error=...)``.
Transient failures are retried: rate limits (429) for as long as the total wait stays within
``max_retry_wait_s``, waiting what the provider asks for (``retry-after-ms``, ``Retry-After``,
Gemini's ``retryDelay``, else the reset of the used-up limit), which the gate applies to every
request of the key (:mod:`~pytest_codegen.generation.congestion`); server errors, timeouts and
dropped connections also at most ``max_attempts`` times. Quota and spend-limit errors are never
retried, and stop the model: later samples are not requested. So does a 400 refusing a sampling
parameter (a rule of the model that :mod:`~pytest_codegen.models.rules` did not know), except a
refusal of several samples per request, which is learned: one sample per request from then on.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterable
from typing import Any

import requests
from requests.adapters import HTTPAdapter

from . import failures, rules, sse
from .base import (
    ANSWERED,
    FAILED,
    THROTTLED,
    UNBOUNDED,
    Completion,
    Gate,
    GenerationRequest,
    Model,
    SamplingParams,
    merge_params,
)
from .failures import (
    SHAPE_ERRORS,
    backoff,
    error_message,
    is_error_body,
    malformed,
    one_line,
    parse_retry_after,
    retryable,
    root_cause,
)
from .keyed_session import KeyedSession, without_key
from .providers import Provider
from .rate_headers import RateHeaders, parse_rate_headers
from .reply_size import MOST_REPLY_BYTES, KeepAlivesOnly, StreamText, TooLarge, lines, read_body


class APIError(Exception):
    """An API failure that survived retries; becomes ``Completion(error=...)``."""


class ModelStopped(APIError):
    """A failure every later request would repeat: no more requests to this model."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason  # the one line the summary shows


class ParameterRejected(APIError):
    """A 400 refusing one of the request's parameters (``param``: a sampling field or n)."""

    def __init__(self, message: str, param: str) -> None:
        super().__init__(message)
        self.param = param


@dataclasses.dataclass
class _Transient(Exception):
    message: str
    wait: float | None = None  # what the provider asked for
    rate_limited: bool = False  # bounded by the wait budget alone, not by attempts
    left: RateHeaders | None = None  # what its rate-limit headers said is left


class HTTPModel(Model):
    """A model behind an HTTP API; subclasses build requests and parse replies."""

    cacheable = True

    def __init__(
        self,
        spec: str,
        provider: Provider,
        model: str,
        base_url: str,
        api_key: str | None,
        *,
        defaults: SamplingParams | None = None,
        timeout_s: float = 120,
        max_attempts: int | None = 6,
        pool_size: int = 64,
        backoff_s: float = 1.0,
        max_backoff_s: float = 60.0,
        max_retry_wait_s: float = 300.0,
        stream: bool | None = None,
        max_reply_bytes: int = MOST_REPLY_BYTES,
        notes: Iterable[str] = (),
    ) -> None:
        self.spec = spec
        self.provider = provider
        self.model = model
        self.base_url = base_url
        self.endpoint = None if base_url == provider.default_url else base_url
        self.api_key = api_key
        self.defaults = defaults or SamplingParams()
        self.timeout_s = timeout_s
        self.max_attempts = max(1, max_attempts) if max_attempts else None
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.max_retry_wait_s = max_retry_wait_s
        self.streaming = provider.stream if stream is None else stream
        self.max_reply_bytes = max_reply_bytes
        self._one_per_request = rules.one_per_request_of(provider.name, model)
        self.max_n = 1 if self._one_per_request else provider.max_n
        # Neutral values (a penalty of 0) of parameters this model refuses are left out.
        self._unsent = set().union(*(f.rejects for f in rules.families_of(provider.name, model)))
        #: Why no more requests go to this model (a quota error, a refused parameter).
        self.stopped: str | None = None
        #: One line each on what was adapted or learned, for the terminal summary.
        self.notes: list[str] = list(notes)
        self._lock = threading.Lock()
        self.check_params(self.defaults)
        self.session = KeyedSession(api_key)
        self.session.headers["User-Agent"] = "pytest-codegen"
        self._pool_size = 0
        self._size_pool(max(1, pool_size))
        #: Bounds the exchanges in flight (the generation engine's budget).
        self.gate: Gate = UNBOUNDED
        self._closed = threading.Event()
        #: Completion tokens per sample so far (sum, samples): the expected size of the next.
        self._completed = (0, 0)

    def _size_pool(self, size: int) -> None:
        # One pool shared by every generation thread; sized so no connection is discarded.
        if size <= self._pool_size:
            return
        self._pool_size = size
        adapter = HTTPAdapter(pool_connections=4, pool_maxsize=size, max_retries=0)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)

    def limit_in_flight(self, gate: Gate, most: int = 0) -> None:
        """Send each exchange through ``gate``, ``most`` at once at most.

        Each attempt holds a slot only while it is on the wire (none while it waits to
        retry), and tells the gate how it ended: a 429 is how a provider says "fewer".
        """
        self.gate = gate
        self._size_pool(most)

    def check_params(self, params: SamplingParams) -> None:
        """Raise :class:`ModelError` if ``params`` holds something this model does not take."""
        rules.check_params(self.provider.name, self.model, params)

    def note(self, line: str) -> None:
        line = without_key(line, self.api_key)
        with self._lock:
            if line not in self.notes:
                self.notes.append(line)

    def planned(self, samples_per_prompt: int) -> None:
        """Told how many samples of one prompt are wanted (the engine asks for them one per
        request when :attr:`max_n` is 1): note the rule that made it so."""
        if samples_per_prompt > 1 and self._one_per_request is not None:
            family = self._one_per_request
            self.note(f"{self.spec}: one sample per request ({family.name} {family.why})")

    def generate(self, request: GenerationRequest) -> list[Completion]:
        params = merge_params(self.defaults, request.params)
        self.check_params(params)
        params = dataclasses.replace(params, **{k: None for k in self._unsent})
        self.planned(request.n)
        indices = list(request.sample_indices)
        out: list[Completion] = []
        error: str | None = None  # what the samples not answered get
        while len(out) < len(indices):
            if self.stopped is not None:
                error = f"not requested: {self.stopped}"
                break
            want = min(len(indices) - len(out), self.max_n)
            call_params = params
            if params.seed is not None:
                # Separate requests with one seed would return identical samples.
                call_params = dataclasses.replace(params, seed=params.seed + indices[len(out)])
            try:
                got = self._call(request.prompt.text, request.prompt.system, call_params, want)
            except ParameterRejected as e:
                if e.param == "n" and want > 1:
                    self.max_n = 1  # learned: ask again, one sample per request
                    self.note(f"{self.spec}: one sample per request (it refused several: {e})")
                    continue
                self._stop(f"{self.spec} refused {e.param} ({rules.flag(e.param)}): {e}")
                error = str(e)
                break
            except APIError as e:
                if isinstance(e, ModelStopped):
                    self._stop(e.reason)
                error = str(e)
                break
            if not got:
                error = f"{self.provider.name} returned no choices"
                break
            out.extend(got[:want])  # fewer than asked: the loop requests the rest
        if error is not None:  # a server may quote the key back in its error
            error = without_key(error, self.api_key)
            out.extend(Completion(error=error) for _ in range(len(indices) - len(out)))
        return out

    def _stop(self, reason: str) -> None:
        reason = without_key(reason, self.api_key)
        with self._lock:
            if self.stopped is None:
                self.stopped = reason
                self.notes.append(f"no further requests: {reason}")

    def close(self) -> None:
        self._closed.set()
        self.session.close()

    # -- transport

    def _call(
        self, text: str, system: str | None, params: SamplingParams, n: int
    ) -> list[Completion]:
        url, headers, body = self._build(text, system, params, n)
        # What a provider's token limit counts: the prompt and the completion expected (at
        # most max_tokens; as long as the ones so far otherwise), about 4 characters a token.
        total, samples = self._completed
        each = params.max_tokens or (total / samples if samples else 0)
        tokens = len(text + (system or "")) / 4 + n * each
        try:
            data, latency = self._post(url, headers, body, tokens)
        except TooLarge as e:  # not retried: a server that sent it once would send it again
            raise APIError(f"reply from {self.provider.name} larger than {e}") from None
        try:
            got = self._parse(data, latency, n)
        except SHAPE_ERRORS as e:
            raise APIError(malformed(self.provider.name, e)) from None
        counted = [c.completion_tokens for c in got if c.completion_tokens is not None]
        with self._lock:
            total, samples = self._completed
            self._completed = (total + sum(counted), samples + len(counted))
        return got

    def _post(
        self, url: str, headers: dict[str, str], body: dict[str, Any], tokens: float = 0.0
    ) -> tuple[Any, float]:
        """Post until an answer comes, a failure is final, or the retry budget runs out."""
        waited, attempts, failed = 0.0, 0, 0
        while True:
            if self._closed.is_set():
                raise APIError(f"{self.provider.name}: model closed")
            attempts += 1
            with self.gate.slot(tokens) as admission:
                start = time.monotonic()
                try:
                    data, admission.left = self._exchange(url, headers, body)
                except _Transient as e:
                    last = e
                    admission.outcome = THROTTLED if e.rate_limited else FAILED
                    admission.left = e.left
                    # The provider's wait speaks for the key: the gate holds every request.
                    admission.cool_down_s = e.wait if e.rate_limited else None
                else:
                    admission.outcome = ANSWERED
                    return data, time.monotonic() - start
            if not last.rate_limited:
                failed += 1
                if self.max_attempts is not None and failed >= self.max_attempts:
                    raise APIError(f"{last.message} (after {attempts} attempts)")
            delay = backoff(failed or attempts, last.wait, self.backoff_s, self.max_backoff_s)
            if waited + delay > self.max_retry_wait_s:
                asked = "it asked for " if last.wait else "next "
                raise APIError(
                    f"{last.message} (after {attempts} attempts: waiting {asked}"
                    f"{delay:.1f}s more would pass the retry wait limit of "
                    f"{self.max_retry_wait_s:g}s, --codegen-max-retry-wait)"
                )
            waited += delay
            if self._closed.wait(delay):
                raise APIError(f"{last.message} (model closed while retrying)")

    def _exchange(
        self, url: str, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[Any, RateHeaders | None]:
        """One request: its decoded answer and what its rate-limit headers say is left, or
        :class:`_Transient` / :class:`APIError`."""
        name, timeout = self.provider.name, self.timeout_s
        sent = time.time()  # what an absolute reset of a rate limit is counted from
        try:
            response = self.session.post(  # streamed: its body is read within its bound
                url, headers=headers, json=body, timeout=(min(10.0, timeout), timeout), stream=True
            )
            streamed = "text/event-stream" in response.headers.get("content-type", "")
            if not (streamed and 200 <= response.status_code < 300):  # read whole, here
                read_body(response, self.max_reply_bytes)
        except requests.Timeout:
            raise _Transient(f"timeout from {name}: no response within {timeout:g}s") from None
        except requests.ConnectionError as e:
            raise _Transient(f"connection error from {name}: {root_cause(e)}") from None
        except requests.exceptions.ChunkedEncodingError as e:  # the body cut off part-way
            raise _Transient(f"reply from {name} cut off: {one_line(str(e), 200)}") from None
        except requests.RequestException as e:
            raise APIError(f"request to {name} failed: {one_line(str(e), 200)}") from None
        with response:
            status = response.status_code
            if 200 <= status < 300 and streamed:
                return self._read_stream(response), parse_rate_headers(response.headers, sent)
            try:
                data = response.json()
            except ValueError:
                if 200 <= status < 300:
                    snippet = f"malformed JSON in response ({one_line(response.text, 80)!r})"
                    raise APIError(f"HTTP {status} from {name}: {snippet}") from None
                data = None
            if 200 <= status < 300 and not is_error_body(data):
                return data, parse_rate_headers(response.headers, sent)
            message = error_message(data)
            if message is None:
                message = one_line(response.text or response.reason or "no body", 200)
            message = f"HTTP {status} from {name}: {message}"
            if 200 <= status < 300:
                # Some gateways (OpenRouter) report upstream failures inside a 200.
                code = data["error"].get("code") if isinstance(data["error"], dict) else None
                status = code if isinstance(code, int) else 400
            self._classify(status, data, message, response.headers, body, sent)

    def _classify(
        self, status: int, data: Any, message: str, headers: Any, body: dict[str, Any], sent: float
    ) -> None:
        """Raise what an error answer means."""
        if failures.is_quota_error(status, data):
            raise ModelStopped(
                message, f"{self.spec}: quota or spend limit reached, not retried ({message})"
            )
        param = failures.rejected_param(status, data, failures.sent_fields(body))
        if param is not None:
            raise ParameterRejected(message, param)
        if not retryable(status):
            raise APIError(message)
        wait = parse_retry_after(headers)
        if wait is None:
            wait = failures.body_retry_delay(data)
        left = parse_rate_headers(headers, sent)
        if wait is None and status == 429 and left is not None:
            wait = left.reset_wait()  # the used-up limit is whole again then
        raise _Transient(message, wait, rate_limited=status == 429, left=left)

    def _read_stream(self, response: requests.Response) -> Any:
        name, most = self.provider.name, self.max_reply_bytes
        keep = StreamText(response, most, self.timeout_s)  # times its progress from here
        try:
            reply = self._collect(sse.json_events(lines(keep.chunks, most), most), keep)
            keep.read_rest()  # the end of the body: the connection is used again
            return reply
        except KeepAlivesOnly as e:  # timed out as a stream of nothing at all is
            raise _Transient(f"timeout from {name}: {e}") from None
        except sse.StreamError as e:
            if e.retryable:
                raise _Transient(f"{name}: {e}") from None
            raise APIError(f"{name}: {e}") from None
        except requests.ConnectionError as e:
            if "timed out" in str(e).lower():
                message = f"timeout from {name}: nothing streamed for {self.timeout_s:g}s"
                raise _Transient(message) from None
            raise _Transient(f"stream from {name} cut off: {root_cause(e)}") from None
        except requests.RequestException as e:  # a chunked body cut off part-way
            raise _Transient(f"stream from {name} cut off: {one_line(str(e), 200)}") from None
        except (*SHAPE_ERRORS, ValueError) as e:  # events of another shape than the format's
            raise APIError(malformed(name, e)) from None

    # -- wire format (subclasses)

    def _build(
        self, text: str, system: str | None, params: SamplingParams, n: int
    ) -> tuple[str, dict[str, str], dict[str, Any]]:
        """The request: URL, headers and body (streamed when ``self.streaming``)."""
        raise NotImplementedError

    def _parse(self, data: Any, latency: float, n: int) -> list[Completion]:
        """The completions of a reply (a streamed one folded by :meth:`_collect`)."""
        raise NotImplementedError

    def _collect(self, events: Iterable[tuple[str, Any]], keep: StreamText) -> Any:
        """Fold a stream's events into the shape of the format's non-streamed reply, each
        piece of text it keeps passed through ``keep``."""
        raise NotImplementedError
