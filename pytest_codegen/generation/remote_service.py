"""Generation for xdist workers on other hosts: the controller's side.

The controller opens one execnet channel per remote worker and generates for it (see
:mod:`.remote` for why, and for the worker's side and the wire). Also here: what the
controller checks of a run with remote hosts, and how it tells a host that went away.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from ..keys import CHANNEL_KEY, MODEL_DEFAULTS_KEY, MODEL_SPEC_KEY
from ..models.base import Completion
from ..user_hooks import call_hook
from .context import GenerationContext, conftest_overrides_model
from .jobs import Job
from .remote import JobWire

# pytest's own options that name a path, whose value may be given apart as well.
PYTEST_PATH_OPTIONS = (
    "--junitxml",
    "--junit-xml",
    "--log-file",
    "--basetemp",
    "--rootdir",
    "--confcutdir",
    "--config-file",
    "--ignore",
    "--ignore-glob",
    "--deselect",
)


def prepare_remote_arguments(config: pytest.Config) -> None:
    """What reaches another host. xdist passes it the command line as given, except that it
    refuses (with an internal error, when it connects) an argument naming a local path
    outside its (deprecated) rsync roots: a suite file given as a path, or an option's value
    given apart (``--codegen-results r.jsonl``) once that file exists, as the results file
    does as soon as the run starts.

    So the value given apart of each option of ours, and of pytest's path options, is joined
    to its option (``--codegen-results=r.jsonl``: the same to every host); an argument that
    still names a local path (a suite file) is one usage-error line."""
    import execnet

    from ..options import OPTIONS
    from ..pytest_internals import replace_invocation_args

    if config.getoption("rsyncdir", None) or config.getini("rsyncdirs"):
        return  # xdist's rsync roots: it decides
    remote = [
        spec
        for spec in config.getoption("tx", None) or []
        if not execnet.XSpec(spec).popen or execnet.XSpec(spec).chdir
    ]
    if not remote:
        return
    valued = {opt.flag_name for opt in OPTIONS if not opt.flag} | set(PYTEST_PATH_OPTIONS)
    args = join_option_values([str(a) for a in config.invocation_params.args], valued)
    replace_invocation_args(config, args)
    for arg in args:
        head = arg.split("::", 1)[0]
        if head and (config.invocation_params.dir / head).exists():
            raise pytest.UsageError(
                f"--tx {remote[0]}: {arg!r} is a path on this machine, which xdist does not "
                "pass to another host; give suites there by built-in name or by the ini key "
                "testpaths (the files at the same paths in the host's working directory), and "
                "options as --option=value"
            )


def join_option_values(args: list[str], options: set[str]) -> list[str]:
    """``args`` with each value of one of ``options`` given as the next argument joined to it
    (``--opt value`` -> ``--opt=value``), as argparse reads both; ``--`` ends the options."""
    joined: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            joined += args[i:]
            break
        if arg in options and i + 1 < len(args) and not args[i + 1].startswith("-"):
            joined.append(f"{arg}={args[i + 1]}")
            i += 2
            continue
        joined.append(arg)
        i += 1
    return joined


def is_remote(node: Any) -> bool:
    """Whether an xdist node runs on another host (anything but ``popen``: ssh, socket)."""
    return not getattr(node.gateway.spec, "popen", False)


SERVER_WAITS_S = 1.0  # how long a live socket server keeps quiet on a new connection


def host_gone(node: Any) -> bool:
    """Whether a socket host's server no longer takes connections (its worker cannot be
    replaced there). Other hosts (ssh) are assumed to be there: each worker is a new login."""
    import socket

    address = getattr(node.gateway.spec, "socket", None)
    if not address:
        return False
    host, _, port = str(address).rpartition(":")
    try:
        with socket.create_connection((host or "127.0.0.1", int(port)), timeout=5) as probe:
            # A server killed a moment ago may still take a connection into its backlog, then
            # drop it: a live one waits for us to speak first.
            probe.settimeout(SERVER_WAITS_S)
            return probe.recv(1) == b""
    except TimeoutError:
        return False
    except (OSError, ValueError):
        return True


class GenerationService:
    """Generates for the remote workers of a run, in the controller's process.

    A :class:`~.context.GenerationContext` supplies the model and engine, built as a local
    worker builds its own (options, cache directory, rate limit).
    """

    def __init__(self, config: pytest.Config, settings: Any, started_at: float) -> None:
        self.generation = GenerationContext(config, settings, started_at)
        self.channels: list[Any] = []

    @property
    def engine(self) -> Any:
        return self.generation.engine_for(self.generation.model)

    def serves(self) -> bool:
        """Whether remote workers should ask here: samples, the run's own model, one that caches."""
        config = self.generation.config
        samples = call_hook("pytest_codegen_grades_samples", config=config)
        if not samples or conftest_overrides_model(config):
            return False
        return self.engine is not None

    def open_for(self, node: Any) -> None:
        """Open a channel to ``node`` and put it in its ``workerinput``."""
        channel = node.gateway.newchannel()
        self.channels.append(channel)
        node.workerinput[CHANNEL_KEY] = channel
        node.workerinput[MODEL_SPEC_KEY] = self.generation.model.spec
        # A kind's sampling defaults give way to the model's own (see Settings.params_for).
        own = getattr(self.generation.model, "defaults", None)
        node.workerinput[MODEL_DEFAULTS_KEY] = own.as_dict() if own is not None else {}
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
        return self.generation.stats()

    def close(self) -> None:
        for channel in self.channels:
            if not channel.isclosed():
                channel.close()
        self.generation.close()
