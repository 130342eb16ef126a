"""A second "host" for pytest-xdist workers, inside the test suite (issue 37 §7).

:class:`WorkerHost` starts execnet's ``socketserver.py`` in its own mount namespace, where a
tmpfs hides the directory the controller uses for its temporary files (``TMPDIR``): the
worker shares nothing with the controller but a socket and the checked-out sources (the
project and the virtualenv). Its environment is a bare ``PATH``: anything else reaches it
only through ``--tx …//env:NAME=value``, as on a real host. Each server runs one worker
(execnet's server runs one connection at a time, in its own process), so killing the server
is losing the host. Needs root and ``unshare(1)``; the ``worker_hosts`` fixture
(tests/conftest.py) skips with the reason elsewhere.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path


def available() -> str | None:
    """Why a worker host cannot be started here, or ``None``."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "a worker host needs root (a private mount namespace)"
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return "a worker host needs unshare(1) and mount(8)"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class WorkerHost:
    """One execnet socket server in a private mount namespace hiding ``hidden``."""

    def __init__(self, hidden: Path, log: Path) -> None:
        import execnet

        script = Path(execnet.__file__).parent / "script" / "socketserver.py"
        self.port = _free_port()
        command = (
            f"mount -t tmpfs tmpfs '{hidden}' && exec '{sys.executable}' '{script}' "
            f"127.0.0.1:{self.port}"
        )
        self.log = log
        self.process = subprocess.Popen(
            ["unshare", "--mount", "--propagation", "private", "sh", "-c", command],
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        )
        for _ in range(400):  # (attempts 0.05 s apart, not a measured deadline)
            if self.process.poll() is not None:
                raise RuntimeError(f"the worker host did not start: {log.read_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
            except OSError:
                time.sleep(0.05)
                continue
            # (that probe was the server's first connection: it serves the next one)
            return
        raise RuntimeError("the worker host did not listen after 400 attempts")

    def spec(self, chdir: Path, **env: str) -> str:
        """The ``--tx`` spec of a worker on this host, starting in ``chdir``."""
        extra = "".join(f"//env:{name}={value}" for name, value in env.items())
        return f"socket=127.0.0.1:{self.port}//chdir={chdir}{extra}"

    def kill(self) -> None:
        """Lose the host: the server (and the worker running in it) dies at once."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
