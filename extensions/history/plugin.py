"""The ``history`` extension's pytest hooks: ``--prob-history=DIR`` keeps each session's JSON
report in DIR, ``--prob-history-keep=N`` prunes the oldest.

The aggregating process (never an xdist worker) checks the directory when the session is
configured (one that cannot take the entries is a usage error before anything runs; a
missing one is created with the first entry) and, at the end of a session in which some
bench run produced a result (also after Ctrl-C, like the JSON report), writes the report
document ``--prob-json`` would write, plus a ``history`` key, as a new entry
(:mod:`.store`), filed under the commit ``pytest_prob_history_commit`` names (by default
the one checked out: :mod:`.gitinfo`). A write or prune that fails is one ``WARNING:`` line
after the report: the history is a record of the session, so it never changes the exit
status.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_probability.api as api
from pytest_probability.api import (
    describe_exception,
    dump_report,
    is_active,
    note_written,
    option_value,
    options_of,
    parse_positive_int,
    parse_text,
    recorded_runs,
    report_document,
    report_of,
    visible,
    write_failure,
)

from . import gitinfo, hookspecs, store

if TYPE_CHECKING:
    from collections.abc import Generator
    from datetime import datetime

    from pytest_probability.api import OptionRegistry

COMMIT_HOOK = "pytest_prob_history_commit"
#: The reason of an entry without a commit when no implementation gave one.
NO_ANSWER = f"no {COMMIT_HOOK} implementation answered"


@dataclass
class HistoryState:
    """Per-config state (aggregating process only, with ``--prob-history`` given): the
    directory as given and made absolute at ``pytest_configure`` (a test may change the
    working directory), how many entries to keep (``None``: all), the commit the entry is
    filed under or why there is none, and the error lines to print after the report."""

    shown: str
    directory: Path
    keep: int | None
    commit: str | None = None
    reason: str | None = None
    #: why the bundled default found no commit (it answers ``None`` then)
    git_reason: str | None = None
    errors: list[str] = field(default_factory=list)


STATE_KEY = pytest.StashKey[HistoryState]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Add this extension's hooks unless the loader already did (it adds every bundled
    extension's hooks; this covers ``-p pytest_probability.extensions.history.plugin``).
    Called once when this module registers, in every process; returns nothing."""
    caller = getattr(pluginmanager.hook, COMMIT_HOOK, None)
    if caller is None or getattr(caller, "spec", None) is None:
        pluginmanager.add_hookspecs(hookspecs)


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--prob-history`` / ``prob_history`` and ``--prob-history-keep`` /
    ``prob_history_keep``. Called by the kernel's historic hook, in every process; returns
    nothing."""
    options.add(
        "history",
        parse=parse_text,
        cli="--prob-history",
        ini="prob_history",
        metavar="DIR",
        help="add the JSON report to DIR as one file per session",
        owner="history",
    )
    options.add(
        "history_keep",
        parse=parse_positive_int,
        cli="--prob-history-keep",
        ini="prob_history_keep",
        metavar="N",
        help="keep the N newest --prob-history entries (default all)",
        owner="history",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Check the ``--prob-history`` directory and remember it, made absolute, in the
    aggregating process.

    Called once per process after the kernel resolved the settings; returns nothing, or
    raises :class:`pytest.UsageError` (exit 4) for a path that cannot be the directory: an
    existing file, a directory that cannot be written to (or read, with a ``keep``), a
    part of the path that is a file. A missing directory is fine: it is created at the end.
    """
    if not is_active(config) or hasattr(config, "workerinput"):
        return
    shown = option_value(config, "history")
    if shown is None:
        return
    keep = option_value(config, "history_keep")
    problem = store.directory_problem(shown, listed=keep is not None)
    if problem is not None:
        raise pytest.UsageError(
            f"{_given(config, shown)}: cannot write the history entries: {problem}; give a "
            "directory that can be written to (a missing one is created)"
        )
    directory = Path(os.path.abspath(shown))
    config.stash[STATE_KEY] = HistoryState(shown=shown, directory=directory, keep=keep)


def _given(config: pytest.Config, value: str) -> str:
    """Where the directory was given, as the settings' own errors say it:
    ``--prob-history=DIR`` or ``ini option prob_history=DIR``."""
    spec = options_of(config).specs["history"]
    if spec.cli is not None and config.getoption(spec.dest, None) is not None:
        return f"{spec.cli}={value}"
    return f"ini option {spec.ini}={value}"


@pytest.hookimpl(trylast=True)
def pytest_prob_history_commit(config: pytest.Config) -> str | None:
    """The default commit: the one checked out in the git repository holding the rootdir,
    read from its files, or ``None`` (the reason is kept for the entry).

    Called once at the end of the session in the aggregating process, when no other
    implementation answered; returns the full commit id or ``None``."""
    head = gitinfo.read_head(config.rootpath)
    state = config.stash.get(STATE_KEY, None)
    if state is not None:
        state.git_reason = head.reason
    return head.commit


def _not_a_commit(answer: Any) -> str | None:
    """What is wrong with an answer of ``pytest_prob_history_commit`` (``None``: nothing)."""
    if isinstance(answer, str) and (
        not answer.strip() or gitinfo.COMMIT_ID.fullmatch(answer.strip().lower())
    ):
        return None
    return (
        f"answered {answer!r:.200}, not a commit id (40 or 64 hexadecimal digits, or '' for none)"
    )


def ask_commit(config: pytest.Config, state: HistoryState) -> None:
    """Ask ``pytest_prob_history_commit`` for the entry's commit, through the extension
    boundary: an implementation that raises or answers garbage is a warning naming it, and
    the next one answers. Sets ``state.commit`` and ``state.reason``; never raises."""
    state.git_reason = None
    try:
        answer = api.call_first(config, COMMIT_HOOK, check=_not_a_commit, config=config)
    except pytest.exit.Exception:
        raise
    except Exception as exc:  # (a warning made an error with -W error, a UsageError)
        state.commit, state.reason = None, f"the commit could not be asked for: {exc}"
        return
    if answer is None:
        state.commit, state.reason = None, state.git_reason or NO_ANSWER
    elif answer.strip():
        state.commit, state.reason = answer.strip().lower(), None
    else:
        state.commit, state.reason = None, f"{COMMIT_HOOK} answered no commit"


def _write(path: Path, text: str) -> None:
    api.write_atomic(path, text)  # (read at each write: a test may replace the writer)


def write_history(config: pytest.Config, state: HistoryState, exit_status: int) -> None:
    """Write the session's entry and prune the directory; the entry gets the line every
    written file gets (``api.note_written``), and each failure one error line in
    ``state``. Never raises."""
    try:
        document = report_document(config, exit_status)
    except Exception as exc:  # a bug here must not hide the session's results
        state.errors.append(f"could not build the history entry: {describe_exception(exc)}")
        return
    if document is None:
        return

    def render(name: str, when: datetime) -> str:
        document["history"] = {
            "commit": state.commit,
            "commit_reason": state.reason,
            "recorded": store.recorded_text(when),
            "file": name,
        }
        return dump_report(document)

    try:
        name = store.write_entry(state.directory, state.commit, render, _write)
    except Exception as exc:  # any failure is one warning line naming the directory
        state.errors.append(write_failure("the history entry", state.shown, exc))
        return
    if state.commit:
        note = f"for commit {state.commit[: store.SHORT_COMMIT]}"
    else:
        note = f"without a git commit ({state.reason})"
    if state.keep is not None:
        removed = prune(state, state.keep, name)
        if removed:
            note += f"; pruned {removed} oldest (keep {state.keep})"
    shown = os.path.join(state.shown, name)
    note_written(config, "history entry", shown, state.directory / name, note)


def prune(state: HistoryState, keep: int, name: str) -> int:
    """Prune the directory to ``keep`` entries, the new one ``name`` among them; returns how
    many were removed (a failure is one error line in ``state``)."""
    where = f"could not prune the history in {state.shown}"
    try:
        pruned = store.prune(state.directory, keep, name)
    except Exception as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        state.errors.append(f"{where}: {reason}")
        return 0
    if pruned.failed:
        first, reason = pruned.failed[0]
        more = len(pruned.failed) - 1
        state.errors.append(
            f"{where}: cannot remove {first}: {reason}" + (f" (and {more} more)" if more else "")
        )
    return len(pruned.removed)


# trylast: the innermost wrapper, inside the terminal reporter's (which prints the summary
# after its yield) however late this extension registered
@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> Generator[None, None, None]:
    """Write the history entry once the kernel built the report (aggregating process only;
    also after Ctrl-C, like the JSON report), when some bench run produced a result.

    Wraps ``pytest_sessionfinish``: asks for the commit before the kernel's implementation
    builds the report (a failing ``pytest_prob_history_commit`` is among its warnings),
    writes after it, before the terminal summary is printed. Leaves the exit status alone,
    even when a write fails.
    """
    config = session.config
    state = config.stash.get(STATE_KEY, None)
    writing = (
        state is not None
        and not hasattr(config, "workerinput")
        and is_active(config)
        and recorded_runs(config) > 0  # (--collect-only, --prob-plan: nothing to keep)
    )
    if writing:
        ask_commit(config, state)
    result = yield
    if writing and report_of(config) is not None:
        write_history(config, state, int(session.exitstatus))
    return result


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print one ``WARNING:`` line per failure to write or prune, after the report (the
    entry written gets its line with every written file's). Called once in the aggregating
    process at the end of the terminal summary; returns nothing."""
    config = terminalreporter.config
    state = config.stash.get(STATE_KEY, None)
    if state is None:
        return
    for error in state.errors:
        terminalreporter.write_line(f"WARNING: {visible(error)}", yellow=True, bold=True)
