"""What an extension may read of a session: its settings, results and report.

Extensions reach the kernel only through these functions (re-exported by
:mod:`pytest_probability.api`), never through the kernel object, so that the kernel's own
layout can change without breaking them. Each raises :class:`RuntimeError` when
pytest-probability is not active in the session (``-p no:probability``).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any

from .loader import COLLECT_MODULE, KERNEL_NAME

if TYPE_CHECKING:
    import os

    import pytest

    from .execution.context import RunContext
    from .kernel import Kernel
    from .options import OptionRegistry
    from .report.builder import ReportBuilder
    from .report.results import Results


def _kernel(config: pytest.Config) -> Kernel:
    kernel = config.pluginmanager.get_plugin(KERNEL_NAME)
    if kernel is None:
        raise RuntimeError("pytest-probability is not active in this session")
    return kernel


def is_active(config: pytest.Config) -> bool:
    """Whether pytest-probability runs in this session (``-p no:probability`` turns it off)."""
    return config.pluginmanager.get_plugin(KERNEL_NAME) is not None


def options_of(config: pytest.Config) -> OptionRegistry:
    """The session's settings: ``value(name)``, ``case_value(name, mark)``, ``specs``.

    Valid in every process from ``pytest_configure`` on (values are resolved there)."""
    return _kernel(config).options


def option_value(config: pytest.Config, name: str) -> Any:
    """The validated session value (CLI > ini > default) of a setting declared through
    ``pytest_prob_addoption``, e.g. ``option_value(config, "runs")``."""
    return _kernel(config).options.session_value(name)


def results_of(config: pytest.Config) -> Results:
    """The session's results: its cases (rows) and their run records, in case order.

    Complete in the aggregating process at ``pytest_sessionfinish``; an xdist worker holds
    only the runs it executed (none in a session that collected no bench file). Read it; do
    not change it."""
    found = _kernel(config).results
    if found is None:
        from .report.results import Results

        return Results()
    return found


def recorded_runs(config: pytest.Config) -> int:
    """How many run records the session holds (without building the results model)."""
    return _kernel(config).recorded


def selected_cases(config: pytest.Config) -> Mapping[str, int]:
    """The keys of the cases selected in a collecting process, mapped to their row order
    (empty when the session collected no bench case)."""
    return _kernel(config).case_order


def stopped_early(config: pytest.Config) -> bool:
    """Whether the session ended before running everything it selected (``-x``,
    ``--maxfail``, Ctrl-C); known from ``pytest_sessionfinish`` in the aggregating process."""
    return _kernel(config).stopped_early


def report_of(config: pytest.Config) -> ReportBuilder | None:
    """The session's report as built at ``pytest_sessionfinish`` (aggregating process), or
    ``None`` before then and in a session with nothing to report."""
    return _kernel(config).builder


def report_document(config: pytest.Config, exit_status: int) -> dict[str, Any] | None:
    """The session's report document, as ``--prob-json`` writes it (``records`` is a lazy
    sequence: serialise it with the document), or ``None`` when there is no report yet.

    For an extension that writes the report in another format at ``pytest_sessionfinish``
    or later, in the aggregating process."""
    return _kernel(config).report_document(exit_status)


def note_written(
    config: pytest.Config, what: str, shown: str, path: str | os.PathLike[str], note: str = ""
) -> None:
    """Say that a writer just wrote ``path`` (``shown``: as the user gave it): the terminal
    summary ends with one line per file, ``probability: {what} {shown} (12 kB) {note}``, as
    ``--junitxml`` prints ``generated xml file: …`` (not under ``-q``).

    For an extension that writes a file at ``pytest_sessionfinish``, in the aggregating
    process, after a successful write; ``what`` names the file (``HTML report``)."""
    from .report.written import written

    _kernel(config).written.append(written(what, str(shown), path, note))


def runs_in_flight(config: pytest.Config) -> int:
    """How many runs this process started whose record is not in its results yet: ``0``
    unless ``--prob-concurrency`` (or a mark's ``concurrency``) overlaps runs. A rule that
    decides whether a run may start (``pytest_prob_skip_run``) counts them as runs that
    will be made: a budget, for instance."""
    import sys

    module = sys.modules.get("pytest_probability.execution.concurrency")
    return 0 if module is None else int(module.runs_in_flight(config))


def run_context_of(item: pytest.Item) -> RunContext | None:
    """The run context of a bench run item between its setup and teardown (what
    ``current_run()`` returns inside its body), else ``None``: for hooks that see the item
    (``pytest_runtest_*``, ``pytest_prob_run_finished``)."""
    import sys

    collect = sys.modules.get(COLLECT_MODULE)
    return None if collect is None else item.stash.get(collect.CONTEXT_KEY, None)


def call_hook(
    config: pytest.Config,
    hook_name: str,
    /,
    *,
    check: Callable[[Any], str | None] | None = None,
    passing: tuple[type[BaseException], ...] = (),
    skip: Collection[str] = (),
    failed: Callable[[str, BaseException], None] | None = None,
    **kwargs: Any,
) -> list[Any]:
    """Call every implementation of the hook ``hook_name`` with ``kwargs`` through the
    plugin's boundary, one implementation at a time in pluggy's order (hook wrappers are
    not called); returns their answers that are not ``None``.

    An implementation that raises (also ``SystemExit``) is left out with a
    ``ProbabilityExtensionWarning`` naming the extension, once per extension and hook, also
    in the report's warnings; ``KeyboardInterrupt`` is the user's interrupt (held, with exit
    status 2, once the runs are over). ``pytest.UsageError`` and ``pytest.exit`` pass
    through, as do exceptions of the ``passing`` types (the hook's documented signals, such
    as a ``ValueError`` refusing the settings). ``check(answer)`` says what is wrong with an
    answer that is not ``None`` (``None`` when nothing is): a wrong answer is left out and
    its extension named like one that raised.

    The implementations of the plugins named in ``skip`` (their registered names) are not
    called. ``failed(name, exception)`` is told of each implementation left out, as it is
    left out (among the answers ``check`` sees, in pluggy's order): for a caller that shows
    the failure in place (a panel marked as failed) or must not take the next answer instead
    (a budget that fails closed)."""
    return _call(config, hook_name, kwargs, False, check, passing, skip, failed)


def call_first(
    config: pytest.Config,
    hook_name: str,
    /,
    *,
    check: Callable[[Any], str | None] | None = None,
    passing: tuple[type[BaseException], ...] = (),
    skip: Collection[str] = (),
    failed: Callable[[str, BaseException], None] | None = None,
    **kwargs: Any,
) -> Any:
    """The first answer that is not ``None`` of the hook ``hook_name`` (a ``firstresult``
    hook), called through the boundary as :func:`call_hook` does; ``None`` when none
    answers. An implementation left out (``failed`` is told) leaves the answer to the next
    one."""
    found = _call(config, hook_name, kwargs, True, check, passing, skip, failed)
    return found[0] if found else None


def not_an_amount(answer: Any) -> str | None:
    """A ``check`` for :func:`call_hook`/:func:`call_first` whose answers are amounts: what
    is wrong with ``answer`` (``None`` for a real number, ``bool`` excluded)."""
    from numbers import Real

    if isinstance(answer, Real) and not isinstance(answer, bool):
        return None
    return f"answered {answer!r:.200}, not an amount"


def _call(
    config: pytest.Config,
    hook_name: str,
    kwargs: dict[str, Any],
    first: bool,
    check: Callable[[Any], str | None] | None,
    passing: tuple[type[BaseException], ...],
    skip: Collection[str] = (),
    failed: Callable[[str, BaseException], None] | None = None,
) -> list[Any]:
    from .report.safe_calls import FailureLog, call_impls

    kernel = _kernel(config)
    results, failures = call_impls(
        config, hook_name, kwargs, kernel.plans, first, check, passing, skip, failed
    )
    if failures:
        (kernel.failures or FailureLog()).add(hook_name, failures)
    return results
