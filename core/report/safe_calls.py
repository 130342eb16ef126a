"""Calling extension hooks one implementation at a time, so one bug cannot lose a paid run.

``pytest_prob_run_finished``, ``pytest_prob_logrecord`` and ``pytest_prob_build_report``
are called through :func:`call_each`: an implementation that raises is reported (a warning
naming the extension, once per extension and hook) and the others still run. Report-time
failures also become a marked section.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Collection, Mapping
from typing import Any

import pytest

from ..execution.signals import PLUGIN_NAME as SIGNALS_PLUGIN
from ..execution.user_values import describe, short_repr
from ..formatting.terminal_text import ProbabilityWarning, visible
from .builder import ReportBuilder
from .results import Results


class ProbabilityExtensionWarning(ProbabilityWarning, pytest.PytestWarning):
    """An extension's hook implementation raised; the session went on without it."""


Plan = tuple[tuple[Any, tuple[str, ...], Any], ...]


class HookPlans(dict[str, Plan]):
    """Each hook's non-wrapper implementations in pluggy's call order, looked up once (the
    kernel clears them whenever a plugin is registered): a dictionary lookup per run
    instead of pluggy's list copies."""

    def plan(self, config: pytest.Config, hook_name: str) -> Plan:
        found = self.get(hook_name)
        if found is None:
            found = self[hook_name] = tuple(
                (impl.function, tuple(impl.argnames), impl)
                for impl in reversed(getattr(config.hook, hook_name).get_hookimpls())
                if not (getattr(impl, "hookwrapper", False) or getattr(impl, "wrapper", False))
            )
        return found


def call_each(
    config: pytest.Config,
    hook_name: str,
    kwargs: Mapping[str, Any],
    plans: HookPlans | None = None,
) -> list[tuple[str, BaseException]]:
    """Call every non-wrapper implementation of ``hook_name`` in pluggy's order (looked up
    through ``plans`` when given); returns ``(plugin name, exception)`` for each that failed
    (:func:`call_impls`)."""
    return call_impls(config, hook_name, kwargs, plans)[1]


def call_impls(
    config: pytest.Config,
    hook_name: str,
    kwargs: Mapping[str, Any],
    plans: HookPlans | None = None,
    first: bool = False,
    check: Callable[[Any], str | None] | None = None,
    passing: tuple[type[BaseException], ...] = (),
    skip: Collection[str] = (),
    failed: Callable[[str, BaseException], None] | None = None,
) -> tuple[list[Any], list[tuple[str, BaseException]]]:
    """The one boundary around extensions' hook implementations: call each non-wrapper
    implementation of ``hook_name`` on its own, in pluggy's order (stopping at the first
    result that is not ``None`` when ``first``); returns the results that are not ``None``
    and ``(plugin name, exception)`` for each implementation that failed.

    A failure is any ``Exception`` and ``SystemExit`` (an extension calling ``sys.exit`` is
    that extension's bug: the session goes on without its answer), but ``pytest.UsageError``
    and ``pytest.exit`` pass through, as they would in pytest. ``KeyboardInterrupt`` is
    the user's interrupt: while the runs go on it propagates (pytest ends the session as after
    Ctrl-C, and the reports are written); in the report phase, where a real Ctrl-C is held
    until the reports are written, it is held the same way: the implementation's answer is
    missing, the session's exit status becomes 2 (interrupted), and every report is written.

    ``check(answer)`` says what is wrong with an answer that is not ``None`` (``None`` when
    nothing): a wrong answer is that implementation's failure (a ``TypeError`` saying so).
    Exceptions of the ``passing`` types are the hook's documented signals: they propagate.
    The implementations of the plugins named in ``skip`` are not called; ``failed(name,
    exception)`` is told of each failure as it happens (in pluggy's order among the answers
    ``check`` sees).
    """
    plan = (plans or HookPlans()).plan(config, hook_name)
    results: list[Any] = []
    failures: list[tuple[str, BaseException]] = []
    for function, argnames, impl in plan:
        if skip and impl.plugin_name in skip:
            continue
        failure: BaseException | None = None
        try:
            found = function(*[kwargs[name] for name in argnames])
        except (pytest.UsageError, pytest.exit.Exception, *passing):
            raise  # (an extension's deliberate usage error or exit, as pytest would)
        except KeyboardInterrupt as exc:
            if not _holding_interrupts(config):
                raise
            config.pluginmanager.get_plugin(SIGNALS_PLUGIN).hold_interrupt()
            failure = exc
        except (Exception, SystemExit) as exc:  # an extension's bug must not lose the session
            failure = exc
        else:
            problem = None if found is None or check is None else check(found)
            if problem is not None:
                failure = TypeError(problem)
            elif found is not None:
                results.append(found)
                if first:
                    break
        if failure is not None:
            failures.append((_name(config, impl), failure))
            if failed is not None:
                failed(*failures[-1])
    return results, failures


def answering_plugin(config: pytest.Config, caller: Any, kwargs: Mapping[str, Any]) -> str:
    """The name of the extension whose implementation answers (or raises) first when the
    hook ``caller`` is called with ``kwargs``, asked again in pluggy's order (for naming a
    wrong answer of a hook called through pluggy itself, on that rare path only); ``"?"``
    when none does."""
    for impl in reversed(caller.get_hookimpls()):
        if getattr(impl, "hookwrapper", False) or getattr(impl, "wrapper", False):
            continue
        try:
            if impl.function(*[kwargs[name] for name in impl.argnames]) is None:
                continue
        except (Exception, SystemExit):  # (raising is answering)
            pass
        return _name(config, impl)
    return "?"


def skip_run_failed(failures: FailureLog, item: Any, answer: object) -> None:
    """Warn (once per extension) that a ``pytest_prob_skip_run`` implementation raised or
    answered something that is not a reason: the run is made, as without it. Called in the
    executing process at the run's setup."""
    kwargs = {"item": item, "case": item.case}
    name = answering_plugin(item.config, item.ihook.pytest_prob_skip_run, kwargs)
    error = answer
    if not isinstance(answer, BaseException):
        error = TypeError(f"answered {short_repr(answer)}, not a reason: the run is made")
    failures.add("pytest_prob_skip_run", [(name, error)])  # type: ignore[list-item]


def _name(config: pytest.Config, impl: Any) -> str:
    return config.pluginmanager.get_name(impl.plugin) or impl.plugin_name


def _holding_interrupts(config: pytest.Config) -> bool:
    """Whether the session's signal handler holds Ctrl-C now (the report phase)."""
    handler = config.pluginmanager.get_plugin(SIGNALS_PLUGIN)
    return bool(getattr(handler, "reporting", False))


class FailureLog:
    """Failures of extension hooks in one process, warned about once per extension and hook."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self._seen: set[tuple[str, str]] = set()
        #: the report being built: a failure while it is built joins its warnings too
        self.builder: ReportBuilder | None = None

    def first(self, name: str, hook_name: str) -> bool:
        """Whether this is the first problem of extension ``name`` in ``hook_name`` (noted
        now: the caller warns about it, once)."""
        if (name, hook_name) in self._seen:
            return False
        self._seen.add((name, hook_name))
        return True

    def add(self, hook_name: str, failures: list[tuple[str, BaseException]]) -> list[str]:
        """Record failures; returns their messages (``extension 'x' failed in HOOK:
        ValueError: boom``), warning about the first of each extension and hook."""
        messages = []
        for name, exc in failures:
            message = f"extension {name!r} failed in {hook_name}: {describe(exc)}"
            messages.append(message)
            if self.first(name, hook_name):
                self.messages.append(message)
                if self.builder is not None:
                    self.builder.warn(message)
                # (pytest prints it as it is: the extension's exception text shows its escapes)
                warnings.warn(ProbabilityExtensionWarning(visible(message)), stacklevel=2)
        return messages


def build_report(config: pytest.Config, results: Results, log: FailureLog) -> ReportBuilder:
    """Ask every extension for its contribution, in hook order, isolating failures."""
    builder = ReportBuilder(rows=[(case.key, case.display) for case in results.rows()])
    for message in log.messages:
        builder.warn(message)
    log.builder = builder
    kwargs = {"report": builder, "results": results, "config": config}
    failures = call_each(config, "pytest_prob_build_report", kwargs)
    log.add("pytest_prob_build_report", failures)
    for name, exc in failures:
        builder.add_section(
            f"{name} (failed)",
            [f"  {describe(exc)}", "  the rest of the report is unaffected"],
            order=10_000,
        )
    return builder
