"""How fast to send: the controller behind the budget of requests in flight.

Its state is the budget's shared state (:mod:`.budget`), so every process of a run obeys
the same controller. Three things hold a request back:

* **A cool-down.** A 429's ``Retry-After`` (``retry-after-ms``), Gemini's ``retryDelay`` or,
  without either, the ``x-ratelimit-reset-*`` of the limit that is used up, speaks for the
  key, not for one request: no request of the run goes out before it has passed. Only a 429
  among answers that show the key is not at its limit (429s up to ``NOISE_SHARE`` of the
  last round trips) is noise, whose wait is its own request's.
* **What the provider says is left.** Rate-limit headers (``x-ratelimit-remaining-*``,
  ``anthropic-ratelimit-*``) tell how many requests and tokens the key has left and how soon
  they refill. The freshest such answer, less what was sent after the request it answered
  and plus what refilled since, is what may still go: a request waits for its turn rather
  than earn a 429.
* **The limit of requests in flight**, found as TCP finds its window (additive increase,
  multiplicative decrease), with one decrease per congestion event: only a 429 to a request
  sent after the last decrease can cut again (the others were sent under the old limit: one
  burst of 429s is one event), and only when 429s are more than ``NOISE_SHARE`` of the
  answers of the last round trips (about two limits' worth, judged once a quarter is in).
  A provider whose limit we pass answers 429 to most of what passes it; a few 429s
  uncorrelated with load are noise, retried under their cool-down without shrinking the
  run. The cut is the share of 429s (at most a half). Each answer while the budget was
  full raises the limit by 1/limit, one request more per round trip (more slowly near the
  limit where the last cut began, see ``PLATEAU_SLOWER``). Server errors and
  dropped connections are retried and change nothing here.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from ..models.base import ANSWERED, THROTTLED, Admission
from ..models.rate_headers import LimitLeft

NOISE_SHARE = 0.15  # 429s in a window up to this share do not cut the limit
# Near the limit at which the last cut began, growth is this many times slower (as TCP CUBIC
# dwells near its last window): the probes past what the provider takes, each earning a
# 429, come that much less often. Past that limit by one request, growth is fast again.
PLATEAU_SLOWER = 8.0
PLATEAU_FROM = 0.9  # of the limit at the last cut
MOST_CUT = 0.5  # one event cuts the limit to no less than this share of it
RECHECK_S = 0.05  # how soon to look again when what is left refills at an unknown pace
# Of a limit, the share kept unused: a provider counts a request when it arrives, a little
# after it was sent, and has refilled that much less than the sender reckons.
MARGIN = 0.05


@dataclasses.dataclass(frozen=True)
class Grant:
    """A request let go: when (monotonic) and the run's counts of requests and tokens sent
    when it went, itself included (what a provider's answer to it had already counted)."""

    sent: float
    seq: int
    tokens_sent: float


def limit_of(state: dict[str, Any], cap: int) -> float:
    """The limit of requests in flight now (fractional: it grows by fractions)."""
    limit = state.get("limit")
    if not isinstance(limit, (int, float)) or not limit >= 1:
        return float(cap)  # a new run's budget (or an unreadable one)
    return min(float(cap), float(limit))


def wait_s(state: dict[str, Any], now: float, tokens: float) -> float:
    """Seconds a request of ``tokens`` tokens must wait before it goes (0: it may go now)."""
    cool = _number(state.get("cool"))
    waits = [cool - now if cool is not None else 0.0]
    left = state.get("left")
    if isinstance(left, dict):
        sent = {"requests": _number(state.get("seq")) or 0, "tokens": _number(state.get("tok"))}
        for kind, need in (("requests", 1.0), ("tokens", tokens)):
            seen = left.get(kind)
            if isinstance(seen, dict) and need > 0:
                waits.append(_refill_wait(seen, now, sent[kind] or 0.0, need))
    return max(0.0, *waits)


def count_sent(state: dict[str, Any], now: float, tokens: float) -> Grant:
    """Count a request going now."""
    seq = int(_number(state.get("seq")) or 0) + 1
    sent_tokens = (_number(state.get("tok")) or 0.0) + max(0.0, tokens)
    state["seq"], state["tok"] = seq, sent_tokens
    return Grant(now, seq, sent_tokens)


def settle(
    state: dict[str, Any], grant: Grant, admission: Admission, full: bool, cap: int, now: float
) -> None:
    """Learn from how the request of ``grant`` ended (``full``: the budget was full)."""
    if admission.left is not None:
        _remember_left(state, grant, admission)
    limit = limit_of(state, cap)
    in_window = grant.sent >= (_number(state.get("cut")) or -math.inf)
    window = state.get("window")
    if not isinstance(window, dict) or not all(_number(v) is not None for v in window.values()):
        window = state["window"] = {"answered": 0, "throttled": 0}
    if in_window and window["answered"] + window["throttled"] >= max(8.0, 2 * limit):
        # About two round trips' worth: older outcomes weigh less, so that 429s that begin
        # after a long calm are judged against the last round trips, not the whole run.
        window["answered"] /= 2
        window["throttled"] /= 2
    if admission.outcome == THROTTLED:
        noise = False
        if in_window:
            window["throttled"] += 1
            judged = window["throttled"] + window["answered"]
            share = window["throttled"] / judged
            # Among answers that show the key is not at its limit, a 429 is noise: only its
            # own request waits what it asked (until then, a 429 speaks for the key).
            noise = judged >= max(8.0, limit / 4) and share <= NOISE_SHARE
            if judged >= max(1.0, limit / 4) and share > NOISE_SHARE:
                state["ceiling"] = limit
                limit = max(1.0, limit * max(MOST_CUT, 1 - share))
                state["cut"] = now
                state["window"] = {"answered": 0, "throttled": 0}
                state["lowest"] = int(min(limit, _number(state.get("lowest")) or limit))
        if admission.cool_down_s is not None and not noise:
            until = now + admission.cool_down_s
            if until > (_number(state.get("cool")) or -math.inf):
                state["cool"] = until
                state["cool_downs"] = int(_number(state.get("cool_downs")) or 0) + 1
    elif admission.outcome == ANSWERED:
        if in_window:
            window["answered"] += 1
        if full:
            # Only a limit in use has shown it is not too high: grown while idle, it
            # would let the next burst far past what the provider takes.
            limit = min(float(cap), limit + _growth(state, limit))
    state["limit"] = limit


def _growth(state: dict[str, Any], limit: float) -> float:
    """What one answer while the budget was full adds to the limit: 1/limit (one request
    more per round trip), slower near the limit of the last cut."""
    ceiling = _number(state.get("ceiling"))
    if ceiling is None or limit < PLATEAU_FROM * ceiling:
        return 1 / limit
    if limit >= ceiling + 1:  # the provider took more than when it last refused
        state.pop("ceiling", None)
        return 1 / limit
    return 1 / (limit * PLATEAU_SLOWER)


def _remember_left(state: dict[str, Any], grant: Grant, admission: Admission) -> None:
    """Keep what the freshest answer (the one to the latest request) says is left."""
    assert admission.left is not None
    left = state.get("left")
    if not isinstance(left, dict):
        left = state["left"] = {}
    for kind, seen, count in (
        ("requests", admission.left.requests, grant.seq),
        ("tokens", admission.left.tokens, grant.tokens_sent),
    ):
        if seen is None:
            continue
        known = left.get(kind)
        if isinstance(known, dict) and (_number(known.get("order")) or 0) > grant.seq:
            continue  # an answer to a later request already spoke
        left[kind] = _observation(seen, grant.sent, grant.seq, count)


def _observation(seen: LimitLeft, sent: float, order: int, count: float) -> dict[str, Any]:
    rate = None
    if seen.reset_s and seen.limit is not None and seen.limit > seen.remaining:
        rate = (seen.limit - seen.remaining) / seen.reset_s  # it refills evenly
    full_at = sent + seen.reset_s if seen.reset_s is not None else None
    return {
        "order": order,
        "count": count,
        "at": sent,
        "remaining": seen.remaining,
        "limit": seen.limit,
        "rate": rate,
        "full_at": full_at,
    }


def _refill_wait(seen: dict[str, Any], now: float, sent: float, need: float) -> float:
    """Seconds until ``need`` more fits in what ``seen`` said was left."""
    remaining = _number(seen.get("remaining"))
    at = _number(seen.get("at"))
    if remaining is None or at is None:
        return 0.0
    limit, rate, full_at = (_number(seen.get(k)) for k in ("limit", "rate", "full_at"))
    after = sent - (_number(seen.get("count")) or 0.0)  # sent since, not counted in it
    margin = MARGIN * limit if limit is not None else 0.0
    if limit is not None:
        need = min(need, limit - margin)  # more than the whole limit: wait for it to be whole
    if rate:
        have = min(limit if limit is not None else math.inf, remaining + rate * (now - at))
        return max(0.0, (need + after + margin - have) / rate)
    if full_at is not None and now >= full_at:
        return 0.0  # whole again: as much as the limit, which an answer will tell
    if remaining - after >= need:
        return 0.0
    return full_at - now if full_at is not None else RECHECK_S


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None
