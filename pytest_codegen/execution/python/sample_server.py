"""The requests a sample's process answers (``child.py`` serves them): ``load`` a candidate
module, ``call`` a function or method in it, or ``getattr``, ``bool``, ``len`` or ``iter`` of
an object. A plain module next
to ``child.py``, which imports it with its other siblings (it must not import the plugin).

Objects that are not plain data stay here, behind the numbers the replies give them. What the
sample tries on the way is noted by ``attempt_watch`` (when the grader asked for it).
"""

import json
import os
import sys
import traceback

import attempt_watch
import verdict_seal
import world_check

# The harness's modules: the world check watches them, and a frame of theirs is the harness's.
# What a call returns most often: plain data, which claims no equality of its own.
PLAIN = frozenset({int, str, float, bool, type(None), list, tuple, dict, set})
SIBLINGS = (
    "wire",
    "confine",
    "landlock",
    "verdict_seal",
    "attempt_watch",
    "world_check",
    "sample_server",
)


class Server:
    """Serves requests from the trusted side; the objects it hands out stay here."""

    def __init__(self, rfd, wfd, wire, mark=b"", attempts=None, world=None):
        self.rfd = rfd
        self.wfd = wfd
        self.wire = wire
        self.objects = []
        # Every reply of ours starts with the grader's mark: a line without it was written
        # by the sample (see attempt_watch.py).
        self.mark = mark
        self.attempts = attempts
        self.world = world

    def ref(self, obj):
        self.objects.append(obj)
        return len(self.objects) - 1

    def send(self, message):
        verdict_seal.flush_output()  # in its files before the grader, having the reply, reads
        if self.world is not None:
            self.world.check()  # its flags reach the grader before the reply they concern
        data = self.mark + self.wire.dumps(message)
        while data:
            data = data[os.write(self.wfd, data) :]

    def reply_exception(self, exc):
        # Only the candidate's frames: ours would only distract from its mistake.
        if self.attempts is not None:
            self.attempts.paused = True  # the source lines it reads are not the sample's doing
        try:
            te = traceback.TracebackException.from_exception(exc)
            te.stack = traceback.StackSummary.from_list(
                [f for f in te.stack if f.filename != __file__]
            )
            tb = list(te.format())
        finally:
            if self.attempts is not None:
                self.attempts.paused = False
        self.send(
            {
                "raise": {
                    "type": type(exc).__name__,
                    "base": verdict_seal.builtin_base(type(exc)),
                    "message": str(exc)[:2000],
                    "traceback": "".join(tb[-6:])[-4000:],
                }
            }
        )

    def serve(self):
        for request in self.wire.read_requests(self.rfd):
            known = len(self.objects)
            if self.answer(request) and request.get("then") and len(self.objects) > known:
                # The loaded entry point's planned calls, answered before they are asked
                # for; the plan stops where the tests could act on a reply first.
                target = known
                for args, kwargs in request["then"]:
                    call = {"op": "call", "target": target, "args": args, "kwargs": kwargs}
                    if not self.answer(call, plain=True):
                        break

    def answer(self, request, plain=False):
        """Reply to one request; False if it raised (or, with ``plain``, handed out an
        object: the reply is not plain data)."""
        try:
            result = getattr(self, "op_" + request["op"])(request)
            known = len(self.objects)
            try:
                reply = {"ok": self.wire.encode(result, self.ref)}
                if self.wire.crossed_as_base(result, reply["ok"]):
                    reply["subclass"] = True  # what the value alone no longer says
            except MemoryError:
                raise
            except Exception as exc:  # noqa: BLE001 - reading the answer is not the call
                # The call returned: what raised is its answer (nested past the recursion
                # limit, a list subclass whose __iter__ raises), which no test may catch as
                # if the call had raised it.
                cause = exc if isinstance(exc, self.wire.WireError) else type(exc).__name__
                why = f"{type(result).__name__} answer could not be read ({cause})"
                self.send({"crash": f"returned malformed data: its {why}"})
                return False
            self.send(reply)
            return not plain or len(self.objects) == known
        except MemoryError:
            self.send({"crash": "out of memory (MemoryError)"})
        except Exception as exc:  # the candidate's exception goes back to the tests
            self.reply_exception(exc)
        except SystemExit as exc:
            if self.attempts is not None:
                self.attempts.note(
                    attempt_watch.EXIT_EARLY, f"raised SystemExit({exc.code!r}) (sys.exit)"
                )
            raise
        return False

    def decode(self, data):
        return self.wire.decode_value(data, lambda i: self.objects[i])

    def op_load(self, req):
        # The first source that compiles; if none does, the first one's error.
        sources = [req["source"], *req.get("fallbacks", ())]
        errors = []
        for source in sources:
            try:
                code = compile(source, "candidate.py", "exec")
                break
            except (SyntaxError, ValueError) as exc:
                errors.append(exc)
        else:
            if self.attempts is not None and _dangling_decorator(req["source"]):
                self.attempts.note(
                    attempt_watch.PATCHING,
                    "ends with a decorator, which would wrap the code that follows (the tests)",
                )
            raise errors[0]
        namespace = {"__name__": "candidate", "__builtins__": __builtins__}
        exec(code, namespace)
        if req["entry"] not in namespace:
            raise NameError(f"the code does not define {req['entry']!r}")
        return namespace[req["entry"]]

    def op_call(self, req):
        target = self.objects[req["target"]]
        args = self.decode(req["args"])
        kwargs = self.decode(req["kwargs"])
        result = target(*args, **kwargs)
        if self.attempts is not None and type(result) not in PLAIN:
            forged = world_check.always_equal(result)
            if forged is not None:
                self.attempts.note(attempt_watch.FORGERY, forged)
        return result

    def op_getattr(self, req):
        return getattr(self.objects[req["target"]], req["name"])

    # What the tests may ask of an object that is not plain data besides calling it: its
    # truth, its length and its items, each answered as Python's own bool(), len(), list().
    def op_bool(self, req):
        return bool(self.objects[req["target"]])

    def op_len(self, req):
        return len(self.objects[req["target"]])

    def op_iter(self, req):
        return list(self.objects[req["target"]])


def _dangling_decorator(source):
    lines = [line for line in source.splitlines() if line.strip()]
    return bool(lines) and lines[-1].lstrip().startswith("@")


def watch(work, mark, resp_w):
    """The audit hook and the world check of ``attempt_watch``, reporting each attempt at
    once on the reply channel (a sample that exits next has still said what it tried)."""

    def report(category, evidence):
        line = mark + json.dumps({"attempt": [category, evidence]}).encode("ascii") + b"\n"
        os.write(resp_w, line)  # one write, far below PIPE_BUF: never split

    attempts = attempt_watch.Attempts(report)
    harness = [(name, sys.modules[name]) for name in SIBLINGS if name in sys.modules]
    harness.append(("child", sys.modules["__main__"]))
    world = world_check.WorldCheck(attempts, harness)
    attempt_watch.start(work["watch"], attempts, work["workdir"])
    return attempts, world
