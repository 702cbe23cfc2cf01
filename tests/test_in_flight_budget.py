"""One budget of model requests in flight for the whole run, adapted to 429s.

End to end: pytest (plain and ``-n 2``) against the fake provider server on 127.0.0.1, which
counts the requests in flight and can answer 429 beyond a concurrency of its own. The budget
itself: its cut-and-grow arithmetic, and real child processes that hold slots and are killed.
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import XDIST_MODES, read_results, run_vllm
from fake_providers import FakeProviders
from many_problems import reply, write_suite

from pytest_codegen.generation.budget import InFlightBudget
from pytest_codegen.generation.filestate import SharedState
from pytest_codegen.models.base import ANSWERED, FAILED, THROTTLED


@pytest.fixture
def server() -> Iterator[FakeProviders]:
    with FakeProviders(reply=reply, openai_key=None) as fake:
        yield fake


# --------------------------------------------------------------------------- end to end


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_budget_bounds_the_whole_run(pytester, server, xdist):
    # Per process, two workers would have twice the budget in flight at once. The first
    # requests wait for 5 in flight (reached however slowly the run gets going); each one
    # then takes 0.3 s, time for a sixth to show.
    server.gather_in_flight = 5
    server.latency_s = 0.3
    suite = write_suite(pytester.path / "many.jsonl", 40)
    result = run_vllm(pytester, server, str(suite), "--codegen-concurrency=5", *xdist)
    result.assert_outcomes(passed=40)
    assert server.count() == 40
    assert server.peak_in_flight == 5  # reached, never passed
    assert "429s cut" not in result.stdout.str()


def test_429s_cut_the_budget_to_what_the_provider_takes(pytester, server):
    # A provider that takes 4 requests at once and answers 429 to any more; the run starts at
    # 16 in flight and must settle near 4, losing no sample.
    limit, samples = 4, 150
    server.latency_s = 0.1
    server.max_in_flight = limit
    suite = write_suite(pytester.path / "many.jsonl", samples)
    result = run_vllm(pytester, server, str(suite), "--codegen-concurrency=16", "-n", "2")
    result.assert_outcomes(passed=samples)
    result.stdout.fnmatch_lines(["*vllm:tiny-coder: 429s cut the requests in flight from 16 to *"])
    records = read_results(pytester.path / "r.jsonl")
    assert len(records) == samples and {r["outcome"] for r in records} == {"passed"}
    answered = [r for r in server.requests if r.error is None]
    assert len(answered) == samples  # each sample answered once
    # The first burst is over the limit; after it, one request above it now and then.
    assert server.throttled < samples / 3
    late = server.requests[len(server.requests) // 2 :]
    assert max(r.in_flight for r in late) <= limit + 2
    assert sum(r.error is not None for r in late) < len(late) / 6


KILL_GW0_HOLDING_A_SLOT = """
import json, os, signal, time
from pathlib import Path

def pytest_runtest_setup(item):
    if os.environ.get("PYTEST_XDIST_WORKER") != "gw0" or Path("killed").exists():
        return
    mine = f"{os.getpid()}-"
    for _ in range(6000):
        for state in Path("gen-cache/in-flight").glob("*.state"):
            try:
                held = json.loads(state.read_text()).get("held", {})
            except ValueError:
                continue  # read while being written: look again
            if any(token.startswith(mine) for token in held):
                Path("killed").write_text(json.dumps(held))
                os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(0.01)
"""


def test_a_killed_worker_gives_its_slots_back_to_the_run(pytester, server):
    # gw0 dies holding slots; xdist starts another worker and the run goes on. The others
    # find the budget full and take the dead worker's slots back: nothing is left held.
    server.latency_s = 0.3
    pytester.makeconftest(KILL_GW0_HOLDING_A_SLOT)
    suite = write_suite(pytester.path / "many.jsonl", 20)
    run_vllm(pytester, server, str(suite), "--codegen-concurrency=2", "-n", "2")
    assert (pytester.path / "killed").exists()
    assert len(read_results(pytester.path / "r.jsonl")) == 20
    (state,) = (pytester.path / "gen-cache" / "in-flight").glob("*.state")
    assert json.loads(state.read_text())["held"] == {}


# --------------------------------------------------------------------------- the budget


def answer_while_full(budget: InFlightBudget, answers: int) -> None:
    """``answers`` requests answered, each freeing a slot of a full budget that is filled
    again at once (as waiting requests do)."""
    held = [budget.acquire() for _ in range(int(budget.limit()))]
    for _ in range(answers):
        budget.release(held.pop(0), ANSWERED)
        while (sent := budget.try_acquire()) is not None:
            held.append(sent)
    for sent in held:
        budget.release(sent, FAILED)


def test_a_burst_of_429s_halves_the_limit_once_and_answers_grow_it() -> None:
    budget = InFlightBudget(8, None, threading.Event())
    burst = [budget.acquire() for _ in range(8)]
    for sent in burst:  # one round trip's 429s: one congestion event
        budget.release(sent, THROTTLED)
    assert budget.limit() == 4
    burst = [budget.acquire() for _ in range(4)]
    for sent in burst:  # sent after the cut: the new limit is still too high
        budget.release(sent, THROTTLED)
    assert budget.limit() == 2
    budget.release(budget.acquire(), FAILED)  # a server error says nothing about the limit
    budget.release(budget.acquire(), ANSWERED)  # nor does an answer while there was room
    assert budget.limit() == 2
    answer_while_full(budget, 2)  # one round trip's worth of answers: one request more
    assert budget.limit() == pytest.approx(3, abs=0.2)
    answer_while_full(budget, 100)
    assert budget.limit() == 8  # never above --codegen-concurrency
    for _ in range(10):
        budget.release(budget.acquire(), THROTTLED)
    assert budget.limit() == 1  # never below one


def test_the_limit_bounds_slots_held_at_once() -> None:
    budget = InFlightBudget(3, None, threading.Event())
    held = [budget.try_acquire() for _ in range(4)]
    assert [sent is not None for sent in held] == [True, True, True, False]
    budget.release(held[0], ANSWERED)  # type: ignore[arg-type]
    assert budget.try_acquire() is not None


def test_threads_waiting_for_a_full_budget_wait_in_line_and_one_looks(
    tmp_path: Path, monkeypatch
) -> None:
    # Twenty threads of this process wait for a full budget shared through a file: only the
    # first in line looks at the shared state (every POLL_S); the others sleep until it has
    # its slot (all of them looking, and taking turns at the file, delayed each freed slot's
    # next request). Each slot freed goes to one waiter, and none is lost.
    stop = threading.Event()
    budget = InFlightBudget(1, tmp_path / "budget.state", stop)
    held = budget.acquire()
    looks = []
    take = budget._take
    monkeypatch.setattr(budget, "_take", lambda tokens: looks.append(1) or take(tokens))
    got: list = []

    def wait_for_a_slot() -> None:
        with contextlib.suppress(RuntimeError):  # the budget stopped: the test failed
            got.append(budget.acquire())

    waiters = [threading.Thread(target=wait_for_a_slot, daemon=True) for _ in range(20)]
    # From before the first thread starts: it looks while the others are still starting.
    started = time.monotonic()
    for thread in waiters:
        thread.start()
    try:
        time.sleep(1.5)
        # The looks so far, against the time they had (a loaded host oversleeps 1.5 s).
        looked = len(looks)
        waited = time.monotonic() - started
        assert got == []
        # One thread looking: at most one look per POLL_S, and one more as it starts.
        assert looked <= waited / budget.POLL_S + 1
        for served in range(1, 21):
            budget.release(held, ANSWERED)
            for _ in range(600):  # a hang guard, not a speed bound
                if len(got) >= served:
                    break
                time.sleep(0.05)
            assert len(got) == served
            held = got[-1]
    finally:
        stop.set()
        budget.wake()
    for thread in waiters:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in waiters)


HOLDER = textwrap.dedent(
    """
    import sys, threading
    from pathlib import Path
    from pytest_codegen.generation.budget import InFlightBudget

    budget = InFlightBudget(int(sys.argv[2]), Path(sys.argv[1]), threading.Event())
    for _ in range(int(sys.argv[2])):
        budget.acquire()
    print("holding", flush=True)
    sys.stdin.read()  # until killed
    """
)


def test_a_killed_process_leaves_no_slot_behind(tmp_path: Path) -> None:
    state = tmp_path / "budget.state"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(state), "2"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        stop = threading.Event()
        budget = InFlightBudget(2, state, stop)
        budget.RECLAIM_EVERY_S = 0  # look for dead holders at every try
        assert budget.try_acquire() is None  # a live process keeps its slots
        got: list[float] = []
        waiter = threading.Thread(target=lambda: got.append(budget.acquire()))
        waiter.start()  # waits for a slot another process frees
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        waiter.join(timeout=600)  # a hang guard, not a speed bound
        stop.set()
        budget.wake()
        assert got, "the killed process's slots were never taken back"
        assert budget.try_acquire() is not None  # both of them
        assert budget.try_acquire() is None
        budget.close()
    finally:
        holder.kill()
        holder.wait()


COUNTER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from pytest_codegen.generation.filestate import SharedState

    shared = SharedState(Path(sys.argv[1]))
    for _ in range(int(sys.argv[2])):
        with shared.edit() as state:
            state["count"] = state.get("count", 0) + 1
    shared.close()
    """
)


def test_processes_editing_one_state_file_lose_no_edit(tmp_path: Path) -> None:
    # The files stay open between turns; the lock still gives each edit to one process at
    # a time, so every increment of three processes (and of this one) is kept.
    path = tmp_path / "shared.state"
    counters = [
        subprocess.Popen([sys.executable, "-c", COUNTER, str(path), "300"]) for _ in range(3)
    ]
    mine = SharedState(path)
    for _ in range(100):
        with mine.edit() as state:
            state["count"] = state.get("count", 0) + 1
    assert [counter.wait(timeout=600) for counter in counters] == [0, 0, 0]
    mine.close()
    with mine.edit() as state:  # closed: the next turn opens the files again
        assert state["count"] == 1000
    mine.close()
