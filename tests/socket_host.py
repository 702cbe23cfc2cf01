"""A second host for pytest-xdist's ``--tx socket=...``: execnet's socket server on 127.0.0.1.

Used by the tests and by ``benchmarks/perf/remote_hosts.py`` (the tests directory is not a
package: put it on ``sys.path``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path


class SocketHost:
    """``execnet/script/socketserver.py`` serving on 127.0.0.1 from its own directory: what
    a second machine with the plugin installed runs (``python socketserver.py :PORT``)."""

    def __init__(self, directory: Path) -> None:
        import execnet.script.socketserver as server_script

        self.directory = directory
        # Its output (the remote worker's own terminal) goes to a file: a pipe nobody reads
        # would block it once full.
        self.log = directory / "socketserver.log"
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-u", server_script.__file__, "127.0.0.1:0"],
                cwd=directory,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 60
        while True:  # "... Entering Accept loop ('127.0.0.1', PORT)"
            found = re.search(r"'127\.0\.0\.1', (\d+)\)", self.log.read_text())
            if found:
                break
            assert self.process.poll() is None, self.log.read_text()
            assert time.monotonic() < deadline, "the socket server did not start"
            time.sleep(0.02)
        self.port = int(found.group(1))

    def tx(self, name: str = "far") -> str:
        return f"--tx=socket=127.0.0.1:{self.port}//id={name}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
