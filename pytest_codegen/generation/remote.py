"""Generation for xdist workers on other hosts (``--tx ssh=...``, ``--tx socket=...``).

A worker on another host shares no disk with the controller, so the generation cache and its
claims (:mod:`~pytest_codegen.generation.cache`) cannot keep it from requesting what another
host already has: every worker prefetches every sample it collected, and which worker grades
which sample changes from run to run. So a remote worker generates nothing itself. The
controller opens one execnet channel per remote worker (handed over in ``workerinput``, which
execnet carries channels in) and generates for it with one :class:`GenerationEngine` on the
controller's machine, in the same cache directory as its local workers: each sample is
requested once per run whichever host grades it, and a rerun on any hosts makes no request.
API keys stay on the controller; a remote host needs the plugin (and Node for React suites)
but no key and no copy of the cache.

The wire carries plain data only: a :class:`Job` as a dict (:class:`JobWire`), a
:class:`Completion` as its ``to_json()``. Messages, worker to controller:
``("prefetch", [job, ...])`` (no answer) and ``("get", job)``, answered by
``("completion", completion)``; a worker asks one ``get`` at a time.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from ..models.base import Completion, GenerationRequest, Model, Prompt, SamplingParams
from ..problems import Problem
from .jobs import Job

# workerinput keys: the channel to the controller's generation, and the model's own spec.
CHANNEL_KEY = "codegen_generation_channel"
MODEL_SPEC_KEY = "codegen_generation_model"


class JobWire:
    """Jobs as plain data, one of these at each end of a channel. A problem (its tests can
    be large: hundreds of inputs each in HumanEval+) crosses once; later jobs name it by
    suite and id."""

    def __init__(self) -> None:
        self.problems: dict[tuple[str, str], Problem] = {}

    def dump(self, job: Job) -> dict[str, Any]:
        key = (job.problem.suite, job.problem.id)
        data: dict[str, Any] = {
            "problem_key": list(key),
            "prompt": dataclasses.asdict(job.prompt),
            "sample_index": job.sample_index,
            "params": dataclasses.asdict(job.params),
            "stage": job.stage,
        }
        if key not in self.problems:
            self.problems[key] = job.problem
            data["problem"] = dataclasses.asdict(job.problem)
        return data

    def load(self, data: dict[str, Any]) -> Job:
        key = (str(data["problem_key"][0]), str(data["problem_key"][1]))
        if "problem" in data:
            self.problems[key] = Problem(**data["problem"])
        return Job(
            self.problems[key],
            Prompt(**data["prompt"]),
            int(data["sample_index"]),
            SamplingParams(**data["params"]),
            stage=str(data["stage"]),
        )


def check_remote_arguments(config: pytest.Config) -> None:
    """One line instead of xdist's internal error: xdist passes the command line to another
    host as given, except that it refuses an argument naming a local path outside its
    (deprecated) rsync roots: a suite file given as a path, or an option's value given as a
    separate argument naming an existing file."""
    import execnet

    if config.getoption("rsyncdir", None) or config.getini("rsyncdirs"):
        return  # xdist's rsync roots: it decides
    remote = [
        spec
        for spec in config.getoption("tx", None) or []
        if not execnet.XSpec(spec).popen or execnet.XSpec(spec).chdir
    ]
    if not remote:
        return
    for arg in map(str, config.invocation_params.args):
        head = arg.split("::", 1)[0]
        if head and (config.invocation_params.dir / head).exists():
            raise pytest.UsageError(
                f"--tx {remote[0]}: {arg!r} is a path on this machine, which xdist does not "
                "pass to another host; give suites there by built-in name or by the ini key "
                "testpaths (the files at the same paths in the host's working directory), and "
                "options as --option=value"
            )


def is_remote(node: Any) -> bool:
    """Whether an xdist node runs on another host (anything but ``popen``: ssh, socket)."""
    return not getattr(node.gateway.spec, "popen", False)


def host_gone(node: Any) -> bool:
    """Whether a socket host's server no longer takes connections (its worker cannot be
    replaced there). Other hosts (ssh) are assumed to be there: each worker is a new login."""
    import socket

    address = getattr(node.gateway.spec, "socket", None)
    if not address:
        return False
    host, _, port = str(address).rpartition(":")
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=5).close()
    except (OSError, ValueError):
        return True
    return False


# -- the worker side


class ControllerModel(Model):
    """The run's model as a remote worker sees it: named like the controller's, generated
    by the controller (through :class:`ControllerEngine`, never by :meth:`generate`)."""

    cacheable = True  # so that the runner takes its engine, which is the controller's

    def __init__(self, spec: str) -> None:
        self.spec = spec

    def generate(self, request: GenerationRequest) -> Sequence[Completion]:
        raise RuntimeError("a remote worker's samples are generated by the controller")


class ControllerEngine:
    """A remote worker's generation engine: every sample asked of the controller.

    The runner's engine interface (``prefetch``, ``get``, ``stats``, ``close``, ``cache``).
    """

    cache = None  # the cache lives with the controller

    def __init__(self, channel: Any) -> None:
        self.channel = channel
        self.wire = JobWire()
        self._lock = threading.Lock()

    def prefetch(self, jobs: Iterable[Job]) -> None:
        with self._lock:
            self.channel.send(("prefetch", [self.wire.dump(j) for j in jobs]))

    def get(self, job: Job) -> Completion:
        with self._lock:
            try:
                self.channel.send(("get", self.wire.dump(job)))
                kind, data = self.channel.receive()
            except Exception as e:  # the controller went away: the sample is not generated
                return Completion(error=f"no answer from the controller's generation: {e}")
        return Completion.from_json(data)

    def stats(self) -> dict[str, Any]:
        return {}  # counted where the requests go out: by the controller

    def close(self) -> None:
        if not self.channel.isclosed():
            self.channel.close()


def worker_model(config: pytest.Config) -> Model | None:
    """On a remote worker the controller generates: the model that says so, else None."""
    workerinput = getattr(config, "workerinput", {})
    if CHANNEL_KEY not in workerinput:
        return None
    return ControllerModel(str(workerinput[MODEL_SPEC_KEY]))


def worker_engine(config: pytest.Config) -> ControllerEngine | None:
    channel = getattr(config, "workerinput", {}).get(CHANNEL_KEY)
    return None if channel is None else ControllerEngine(channel)


# -- the controller side


class GenerationService:
    """Generates for the remote workers of a run, in the controller's process.

    A :class:`~pytest_codegen.runner.SampleRunner` that runs no items supplies the model and
    engine, built as a local worker builds its own (options, cache directory, rate limit).
    """

    def __init__(self, config: pytest.Config, settings: Any, started_at: float) -> None:
        from ..runner import SampleRunner

        self.runner = SampleRunner(config, settings)
        self.runner.started_at = started_at  # "regenerate" is judged against the run's start
        self.channels: list[Any] = []

    @property
    def engine(self) -> Any:
        return self.runner.engine_for(self.runner.model)

    def serves(self) -> bool:
        """Whether remote workers should ask here: samples, the run's own model, one that caches."""
        from ..runner import conftest_overrides_model

        config = self.runner.config
        samples = config.hook.pytest_codegen_grades_samples(config=config)
        if not samples or conftest_overrides_model(config):
            return False
        return self.engine is not None

    def open_for(self, node: Any) -> None:
        """Open a channel to ``node`` and put it in its ``workerinput``."""
        channel = node.gateway.newchannel()
        self.channels.append(channel)
        node.workerinput[CHANNEL_KEY] = channel
        node.workerinput[MODEL_SPEC_KEY] = self.runner.model.spec
        wire = JobWire()
        # Called in execnet's receiving thread, in the order the worker sent them (so a
        # problem is known before a job names it); answered from threads of their own.
        channel.setcallback(lambda message: self._receive(channel, wire, message))

    def close_for(self, node: Any) -> None:
        channel = node.workerinput.get(CHANNEL_KEY)
        if channel is not None and not channel.isclosed():
            channel.close()

    def _receive(self, channel: Any, wire: JobWire, message: Any) -> None:
        kind, data = message
        work: Any
        try:
            if kind == "prefetch":
                target, work = self._prefetch, [wire.load(j) for j in data]
            elif kind == "get":
                target, work = self._answer, wire.load(data)
            else:
                return
        except (KeyError, TypeError, ValueError, IndexError) as e:  # never leave it waiting
            if kind == "get":
                error = Completion(error=f"the controller could not read the request: {e!r}")
                channel.send(("completion", error.to_json()))
            return
        threading.Thread(
            target=target, args=(channel, work), name="codegen-remote-generation", daemon=True
        ).start()

    def _prefetch(self, channel: Any, jobs: list[Job]) -> None:
        try:
            self.engine.prefetch(jobs)
        except RuntimeError:  # the engine closed: the run is ending
            pass

    def _answer(self, channel: Any, job: Job) -> None:
        try:
            completion = self.engine.get(job)
        except Exception as e:  # noqa: BLE001 - the worker must get an answer whatever happens
            completion = Completion(error=f"generation failed on the controller: {e}")
        if not channel.isclosed():
            try:
                channel.send(("completion", completion.to_json()))
            except Exception:  # noqa: BLE001 - the worker's host went away meanwhile
                pass

    def stats(self) -> dict[str, Any]:
        engine = self.runner._engine
        return engine.stats() if engine is not None else {}

    def close(self) -> None:
        for channel in self.channels:
            if not channel.isclosed():
                channel.close()
        self.runner.close()
