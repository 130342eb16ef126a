"""Fixtures, hooks and session set-up for the test suite (pytester is enabled by ``-p pytester``
in addopts). The helpers test modules import (``section``, ``load_json``, ``count_work`` ...)
are in helpers.py: a conftest is not meant to be imported as a module.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest

# helpers.py is a plain module: have pytest rewrite its asserts as it does a conftest's (the
# registration must come before the import)
pytest.register_assert_rewrite("helpers")

from helpers import SPEC_BENCH, RecordedClock  # noqa: E402
from hosts import WorkerHost, available  # noqa: E402


def _import_every_plugin_module() -> None:
    """Import every module of the plugin once, before any test runs.

    The plugin imports a feature's machinery when the feature is first used (start-up stays
    cheap), and pytester's in-process sessions forget the modules a session imported when
    it ends: a later in-process session would import a second copy of the module, whose
    classes are not the ones objects from the first copy are instances of. With every
    module imported here, every in-process session shares one copy, as a user's single
    session does. (``__main__`` is the command-line entry point, not imported.)
    """
    import importlib
    import pkgutil

    import pytest_probability
    import pytest_probability.extensions as extensions

    for package in (pytest_probability, extensions):  # two folders in an editable install
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if not module.name.endswith("__main__"):
                importlib.import_module(module.name)


_import_every_plugin_module()


def _compile_then_write_no_bytecode() -> None:
    """Write the bytecode of the plugin and of the contrib extensions once, then let no
    process of the suite write bytecode.

    The suite starts thousands of interpreters (pytester's subprocess sessions,
    pytest-xdist's workers): without bytecode on disk each compiled the plugin from source
    again (0.17 s of a 0.6 s session, measured). But a session must not cache the files it
    is given: a test that rewrites a bench file within the same second, at the same size,
    would import the first version again from pytest's cache of rewritten modules (it keys
    them by size and mtime in whole seconds, as CPython does). So the bytecode of the code
    under test is written here, up to date, and nothing else ever is.
    """
    import compileall
    import os
    from pathlib import Path

    import pytest_probability
    import pytest_probability.extensions as extensions

    contrib = Path(__file__).resolve().parents[1] / "contrib"
    folders = [*pytest_probability.__path__, *extensions.__path__]
    folders += [str(source) for source in sorted(contrib.glob("*/src")) if source.is_dir()]
    for folder in dict.fromkeys(folders):  # (an installed plugin nests the extensions)
        compileall.compile_dir(folder, quiet=2)
    if "PYTEST_XDIST_WORKER" not in os.environ:  # (once, in the suite's first process)
        _cache_rewritten_plugins()
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    sys.dont_write_bytecode = True


def _cache_rewritten_plugins() -> None:
    """Fill pytest's cache of the installed plugins' rewritten modules.

    pytest rewrites the asserts of every module of an installed pytest plugin
    (pytest-xdist's, hypothesis's ...) when a session imports it, and keeps the result as
    bytecode beside it; where no bytecode may be written, every session of the suite rewrote
    them again (in a fresh virtualenv the cache is empty). One throwaway session that may
    write bytecode, running one test on a pytest-xdist worker, fills it.
    """
    import importlib.util
    import os
    import subprocess
    import tempfile
    from pathlib import Path

    xdist = importlib.util.find_spec("xdist")
    if xdist is not None and xdist.origin is not None:
        cache = Path(xdist.origin).parent / "__pycache__"
        tag = f"{sys.implementation.cache_tag}-pytest-{pytest.__version__}"
        if (cache / f"plugin.{tag}.pyc").exists():
            return  # (filled already: a developer's next run starts at once)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    workers = ["-n", "1"] if xdist is not None else []
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "test_one.py"), "w", encoding="utf-8") as test:
            test.write("def test_one():\n    pass\n")
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *workers, folder]
        subprocess.run(command, cwd=folder, env=env, capture_output=True, check=False)


_compile_then_write_no_bytecode()


def _import_hypothesis() -> None:
    """Import hypothesis, whose pytest plugin loads in every session, before any test runs.

    An in-process session that imports it would otherwise drop it again at its end (as
    above), so every such session imported hypothesis afresh; and since hypothesis is a
    ``pytest11`` distribution, pytest's assertion rewriter rewrote its ~75 modules each time
    (under ``PYTHONDONTWRITEBYTECODE=1``, with no cache to read: 2,835 rewrites in
    tests/test_gates.py alone, three quarters of its time).
    """
    try:
        import hypothesis
        import hypothesis.strategies  # noqa: F401
    except ImportError:  # the plain suite does not need it (tests/property does)
        pass


_import_hypothesis()


@pytest.fixture
def spec_bench(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory holding the spec's example bench file."""
    pytester.makepyfile(bench_spec=SPEC_BENCH)
    return pytester


#: Kernel tests look at the kernel's own output: the bundled intervals, cost and gates
#: extensions (tested in their own test modules) are switched off the way a user would,
#: with ``-p no:``.
KERNEL_ONLY = (
    "-p",
    "no:probability.intervals",
    "-p",
    "no:probability.cost",
    "-p",
    "no:probability.gates",
    "-p",
    "no:probability.latency",
    "-p",
    "no:probability.comparisons",
)


@pytest.fixture
def kernel_only(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run every pytester session of the test without the intervals, cost and gates
    extensions."""
    for name in ("runpytest", "runpytest_subprocess"):
        original = getattr(pytester, name)

        def run(*args: Any, _original: Any = original, **kwargs: Any) -> pytest.RunResult:
            return _original(*args, *KERNEL_ONLY, **kwargs)

        monkeypatch.setattr(pytester, name, run)


@pytest.fixture(autouse=True)
def _collection_order(request: pytest.FixtureRequest) -> None:
    """Keep pytest-randomly (installed for the compatibility tests) from shuffling the runs of
    pytester sessions: their expected output is written in collection order. A test that
    wants random order deletes ``PYTEST_ADDOPTS`` (pytester itself clears it on creation,
    which is why this is set after the ``pytester`` fixture exists).

    The sessions also go without hypothesis's pytest plugin: no bench file uses hypothesis,
    and the plugin imports the whole library at the end of every session (0.12 s of each
    subprocess session and pytest-xdist worker, measured with hypothesis 6.170)."""
    if "pytester" not in request.fixturenames:
        return
    request.getfixturevalue("pytester")
    monkeypatch: pytest.MonkeyPatch = request.getfixturevalue("monkeypatch")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:randomly -p no:hypothesispytest")
    # under GitHub Actions, sessions of the suite must not append to the job's summary page
    # (tests/test_markdown.py sets it where it tests it)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


@pytest.fixture
def recorded_clock(monkeypatch: pytest.MonkeyPatch) -> RecordedClock:
    """A :class:`RecordedClock` standing in for the run timer and the ``--prob-delay`` sleep of
    in-process pytester sessions; bench files reach it with ``import recorded_clock``."""
    from pytest_probability.collection import collector
    from pytest_probability.execution import run_start

    clock = RecordedClock()
    monkeypatch.setattr(collector, "perf_counter", clock)
    monkeypatch.setattr(run_start, "sleep", clock.sleep)
    module = types.ModuleType("recorded_clock")
    module.clock = clock  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "recorded_clock", module)
    return clock


@pytest.fixture
def worker_hosts(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[], WorkerHost]]:
    """A factory of worker hosts; the controller's ``TMPDIR`` (set here) is hidden from
    them. Every host is killed at the end of the test."""
    reason = available()
    if reason is not None:
        pytest.skip(reason)
    hidden = tmp_path_factory.mktemp("controller-tmp")
    monkeypatch.setenv("TMPDIR", str(hidden))
    started: list[WorkerHost] = []

    def start() -> WorkerHost:
        log = tmp_path_factory.mktemp("host") / "server.log"
        host = WorkerHost(hidden, log)
        started.append(host)
        return host

    yield start
    for host in started:
        host.kill()


def pytest_configure(config: pytest.Config) -> None:
    """Register every bundled extension in this suite's own session: unit tests read the
    extensions' registries through ``pytestconfig`` (``test_gates``' interval methods), and
    a worker that collects no bench file would otherwise register none (they register when a
    session needs them)."""
    kernel = config.pluginmanager.get_plugin("probability.kernel")
    if kernel is not None:
        kernel.activate(config)
