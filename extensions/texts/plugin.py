"""The ``texts`` extension's pytest hooks: its settings, the bundled backend, the session the
helpers use outside a bench run (a plain test), and where their warnings point.

Nothing here reads or checks the judge's settings: that happens on the first helper call, so
a session that does not use the helpers is never affected by them. Nor does it import the
judge's client: a bench session that does not use the helpers never loads it.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import run_context_of

if TYPE_CHECKING:
    from pytest_probability.api import OptionRegistry

#: (setting, CLI flag or None, help) — values are text, checked on first use
SETTINGS = (
    ("texts_model", "--texts-model", "judge model of texts_* helpers (or PYTEST_TEXTS_MODEL)"),
    ("texts_base_url", "--texts-base-url", "OpenAI-compatible base URL (or OPENAI_BASE_URL)"),
    ("texts_backend", None, "judge backend (default openai)"),
    ("texts_azure_endpoint", None, "Azure OpenAI endpoint (or AZURE_OPENAI_ENDPOINT)"),
    ("texts_azure_deployment", None, "Azure OpenAI deployment (default: the model)"),
    ("texts_api_version", None, "Azure OpenAI api-version (or OPENAI_API_VERSION)"),
    ("texts_temperature", None, "judge temperature (default 0)"),
    ("texts_max_tokens", None, "judge reply token budget (default 1024; reasoning 8192)"),
    ("texts_timeout", None, "seconds per whole judge request (default 60)"),
    ("texts_json_mode", None, "structured output: schema (default), object or text"),
    ("texts_max_concurrency", None, "judge calls in flight at once (default 8)"),
    ("texts_prices", None, "TOML file of judge prices per million tokens"),
    ("texts_breaker_failures", None, "circuit breaker: unreachable calls in a row (default 3)"),
    ("texts_breaker_cooldown", None, "circuit breaker: seconds before a retry (default 30)"),
)

#: the config of the session in progress (set at ``pytest_configure``)
SESSION: dict[str, Any] = {"config": None}
#: what was already warned about in this session ("warn once")
WARNED: set[str] = set()


def caller_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside this package (the
    bench line that called the helper)."""
    frame = sys._getframe(1)
    level = 1
    package = __name__.rsplit(".", 1)[0]
    while frame is not None and frame.f_globals.get("__name__", "").startswith(package):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare the judge's settings (as text: they are checked when a helper first needs
    them). Called by the kernel's historic hook."""
    for name, flag, help_text in SETTINGS:
        options.add(
            name,
            parse=str,
            cli=flag,
            ini=name,
            metavar="VALUE",
            help=help_text,
            owner="texts",
        )
    options.add(
        "texts_cache",
        parse=str,
        cli="--texts-cache",
        ini="texts_cache",
        flag_value="true",
        help="reuse judge replies from pytest's cache",
        ini_help="reuse judge replies from pytest's cache (default false)",
        owner="texts",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Remember the session for helpers called outside a bench run (a new session warns
    afresh). Called once per process."""
    SESSION["config"] = config
    WARNED.clear()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Forget the session. Called once per process at the end."""
    SESSION["config"] = None
    WARNED.clear()


# tryfirst: its own entries lead its registry, however late it registers (on use)
@pytest.hookimpl(tryfirst=True)
def pytest_prob_register_llm_backends(register: Any, config: pytest.Config | None) -> None:
    """Register the bundled ``openai`` backend. Called on the first helper call (with no
    config for helpers used outside a pytest session)."""
    from .client import ChatClient  # (the HTTP client: only once a helper is called)

    register("openai", ChatClient, description="OpenAI-compatible chat completions")


def pytest_prob_run_finished(item: pytest.Item, record: dict[str, Any]) -> None:
    """Name the judge and the prompt version on the record of a run that used the helpers
    (``texts``). Called in the executing process once per run."""
    context = run_context_of(item)
    used = context.data.get("texts") if context is not None else None
    if used is not None:
        record["texts"] = used


def pytest_prob_build_report(report: Any, results: Any, config: pytest.Config) -> None:
    """Add the top-level ``texts`` object (judges and prompt versions used) when a run used
    the helpers. Called once in the aggregating process."""
    seen: list[dict[str, Any]] = []
    for case in results.cases():
        for record in case.records.values():
            used = record.get("texts")
            if used is not None and used not in seen:
                seen.append(used)
    if seen:
        report.set_json("texts", {"judges": seen})
