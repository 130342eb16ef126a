"""Calling extension hooks one implementation at a time, so one bug cannot lose a paid run.

``pytest_prob_run_finished``, ``pytest_prob_logrecord`` and ``pytest_prob_build_report``
are called through :func:`call_each`: an implementation that raises is reported (a warning
naming the extension, once per extension and hook) and the others still run. Report-time
failures also become a marked section.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import pytest

from ..execution.user_values import describe
from .builder import ReportBuilder
from .results import Results


class ProbabilityExtensionWarning(pytest.PytestWarning):
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
) -> list[tuple[str, Exception]]:
    """Call every non-wrapper implementation of ``hook_name`` in pluggy's order (looked up
    through ``plans`` when given); returns ``(plugin name, exception)`` for each that raised."""
    plan = (HookPlans() if plans is None else plans).plan(config, hook_name)
    failures: list[tuple[str, Exception]] = []
    for function, argnames, impl in plan:
        try:
            function(*[kwargs[name] for name in argnames])
        except Exception as exc:  # an extension's bug must not lose the session's results
            name = config.pluginmanager.get_name(impl.plugin) or impl.plugin_name
            failures.append((name, exc))
    return failures


class FailureLog:
    """Failures of extension hooks in one process, warned about once per extension and hook."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self._seen: set[tuple[str, str]] = set()

    def first(self, name: str, hook_name: str) -> bool:
        """Whether this is the first problem of extension ``name`` in ``hook_name`` (noted
        now: the caller warns about it, once)."""
        if (name, hook_name) in self._seen:
            return False
        self._seen.add((name, hook_name))
        return True

    def add(self, hook_name: str, failures: list[tuple[str, Exception]]) -> list[str]:
        """Record failures; returns their messages (``extension 'x' failed in HOOK:
        ValueError: boom``), warning about the first of each extension and hook."""
        messages = []
        for name, exc in failures:
            message = f"extension {name!r} failed in {hook_name}: {describe(exc)}"
            messages.append(message)
            if self.first(name, hook_name):
                self.messages.append(message)
                warnings.warn(ProbabilityExtensionWarning(message), stacklevel=2)
        return messages


def build_report(config: pytest.Config, results: Results, log: FailureLog) -> ReportBuilder:
    """Ask every extension for its contribution, in hook order, isolating failures."""
    builder = ReportBuilder(rows=[(case.key, case.display) for case in results.rows()])
    for message in log.messages:
        builder.warn(message)
    kwargs = {"report": builder, "results": results, "config": config}
    failures = call_each(config, "pytest_prob_build_report", kwargs)
    for message, (name, exc) in zip(
        log.add("pytest_prob_build_report", failures), failures, strict=True
    ):
        builder.warn(message)
        builder.add_section(
            f"{name} (failed)",
            [f"  {describe(exc)}", "  the rest of the report is unaffected"],
            order=10_000,
        )
    return builder
