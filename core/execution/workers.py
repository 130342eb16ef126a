"""pytest-xdist workers on other hosts (``--tx ssh=…``/``socket=…``): the same plugin version
on both sides, and a worker host that disappears ends the session with one clear message.

* **Versions.** The controller hands each worker its plugin version through
  ``workerinput``; a worker with another version fails its collection with one line naming
  both (records and verdict items would not mean the same on both sides). A usage error at
  configure time would crash the worker, and pytest-xdist would restart it again and again.
* **A lost host.** When a worker dies, pytest-xdist replaces it from the same ``--tx`` spec;
  for a host that is gone, making that gateway raises (connection refused, host not found)
  out of pytest-xdist's run loop, an INTERNALERROR that skipped the terminal summary. The
  controller catches exactly that — an ``OSError``, ``EOFError`` or execnet's
  ``HostNotFound`` after a worker went down — ends the run loop there, and says which
  worker was lost, why it could not be replaced and how many items never ran; the run
  lost with the worker is already an error record (the kernel's crash handling), and every
  report is written as after ``-x``.
* **Test files' bench functions.** Workers collect, so a worker sends the ``bench_*``
  functions it found in files collected as tests (never run) through ``workeroutput``, and
  the controller's line for a session without bench runs names them as a plain session's
  does.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from ..sessionviews import options_of

PLUGIN_NAME = "probability.workers"
#: the ``--dist`` modes that send a worker every run of a case together (the first three
#: through the kernel's case-aware scheduler)
WHOLE_CASE_MODES = ("load", "loadgroup", "worksteal", "loadfile", "loadscope", "each")
#: the ``workerinput`` key carrying the controller's plugin version to its workers
VERSION_KEY = "probability_version"
#: the ``workeroutput`` key carrying a worker's ``bench_*`` functions of test files
STRAYS_KEY = "probability_strays"


def version_mismatch(config: pytest.Config) -> str | None:
    """On a pytest-xdist worker under a controller with another version of the plugin, the
    message its collection fails with; ``None`` elsewhere (a controller without the plugin
    sends no version; a worker on the controller's machine always matches)."""
    from .. import __version__

    workerinput = getattr(config, "workerinput", None)
    if workerinput is None or VERSION_KEY not in workerinput:
        return None
    theirs = workerinput[VERSION_KEY]
    if theirs == __version__:
        return None
    worker = workerinput.get("workerid", "a worker")
    return (
        f"pytest-probability {__version__} on worker {worker} but {theirs} on the controller: "
        "install the same version of the plugin on every host the session runs on (--tx)"
    )


def _gateway_errors() -> tuple[type[BaseException], ...]:
    """What making a gateway to a host that is gone raises."""
    found: tuple[type[BaseException], ...] = (OSError, EOFError)
    try:
        from execnet import HostNotFound
    except ImportError:  # (pytest-xdist always brings execnet; a stub does not)
        return found
    return (*found, HostNotFound)


class WorkerHosts:
    """The version handshake (controller and workers) and a lost host (controller)."""

    def __init__(self, config: pytest.Config, strays: list[str]) -> None:
        self.mismatch = version_mismatch(config)
        #: the kernel's ``bench_*`` functions of test files: filled by collection on a worker,
        #: by the workers' reports on the controller
        self.strays = strays
        #: workers that went down: (worker id, its spec), in order
        self.down: list[tuple[str, str]] = []
        self.lost: str | None = None
        self.items = 0
        self.finished: set[str] = set()

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """Hand a worker the controller's plugin version, and say whether it gets every run
        of a case together (it may then set them up ahead of time under
        ``--prob-concurrency``). Called on the controller once per worker before it starts;
        returns nothing."""
        from .. import __version__
        from .concurrency import WHOLE_CASES

        node.workerinput[VERSION_KEY] = __version__
        config = node.config
        transposed = options_of(config).session_value("transpose")
        together = config.getvalue("dist") in WHOLE_CASE_MODES
        node.workerinput[WHOLE_CASES] = together and not transposed

    @pytest.hookimpl(tryfirst=True)
    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> None:
        """Fail a worker's collection, once, when its plugin version is not the controller's:
        called in every process for each file collected; raises
        :class:`pytest.Collector.CollectError` (pytest-xdist reports it as that worker's
        collection error and ends the session); returns nothing."""
        if self.mismatch is not None:
            message, self.mismatch = self.mismatch, None
            raise pytest.Collector.CollectError(message)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Count the items (the same on every worker). Called on the controller once per
        worker; returns nothing."""
        self.items = self.items or len(ids)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Note each item that ran (its teardown, or the report of a crashed item). Called on
        the controller for every report; returns nothing."""
        if report.when in ("teardown", "???"):  # ("???": pytest-xdist's crash report)
            self.finished.add(report.nodeid)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Send the controller the ``bench_*`` functions of test files this worker found.
        Called once per process after collection; on a worker, fills ``workeroutput``
        (pytest-xdist sends it when the worker ends); returns nothing."""
        workeroutput = getattr(session.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[STRAYS_KEY] = list(self.strays)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """Remember a worker that went down, and the ``bench_*`` functions of test files it
        found (each once: every worker collects every file). Called on the controller once
        per worker; returns nothing."""
        found = getattr(node, "workeroutput", None) or {}
        for stray in found.get(STRAYS_KEY, ()):
            if isinstance(stray, str) and stray not in self.strays:
                self.strays.append(stray)
        if error is not None:
            spec = str(node.gateway.spec)
            parts = [part for part in spec.split("//") if not part.startswith("execmodel=")]
            self.down.append((str(node.gateway.id), "//".join(parts)))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        """End the run loop with a message, not an INTERNALERROR, when pytest-xdist cannot
        replace a worker whose host is gone. Wraps the loop on the controller; returns its
        result, or ``True`` (the loop is over) after such a failure."""
        try:
            return (yield)
        except _gateway_errors() as exc:
            if not self.down:
                raise
            worker, spec = self.down[-1]
            self.lost = (
                f"worker {worker} ({spec}) went down and could not be replaced: "
                f"{type(exc).__name__}: {exc}"
            )
            if not session.testsfailed:
                session.testsfailed = 1  # (the session did not run everything: it failed)
            return True

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Say which worker host was lost and how many items never ran. Called once on the
        controller; returns nothing."""
        if self.lost is None:
            return
        terminalreporter.write_sep("=", "probability: workers", red=True)
        terminalreporter.write_line(f"  {self.lost}")
        missing = max(0, self.items - len(self.finished))
        if missing:
            word = "item" if missing == 1 else "items"
            terminalreporter.write_line(
                f"  the session stopped there: {missing} of {self.items} {word} never ran"
            )


def register(config: pytest.Config, strays: list[str]) -> None:
    """Register :class:`WorkerHosts` (once) in a pytest-xdist controller or worker, sharing
    the kernel's list of ``bench_*`` functions found in test files (``strays``)."""
    if not config.pluginmanager.has_plugin(PLUGIN_NAME):
        config.pluginmanager.register(WorkerHosts(config, strays), PLUGIN_NAME)
