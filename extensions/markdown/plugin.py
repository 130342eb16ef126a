"""The ``markdown`` extension's pytest hooks: ``--prob-markdown=PATH`` and the job summary
(``GITHUB_STEP_SUMMARY``).

The aggregating process (never an xdist worker) renders the summary once at the end of the
session, from the report document ``--prob-json`` would write, then writes it to the
``--prob-markdown`` path (replacing the file, creating missing directories) and appends it
to the job summary file. A path that cannot take the file is a usage error before anything
runs, as for every writer; a write that fails at the end is one ``WARNING:`` line after the
report: a summary is a convenience, so it never changes the exit status.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_probability.api as api
from pytest_probability.api import (
    ERROR,
    FAIL,
    claim_output,
    dump_report,
    is_active,
    is_stream,
    option_value,
    parse_text,
    recorded_runs,
    report_document,
    report_of,
    results_of,
    visible,
    write_failure,
)

from . import hookspecs, render
from .markup import MarkdownSection

if TYPE_CHECKING:
    from collections.abc import Generator

    from pytest_probability.api import OptionRegistry, Results

SECTIONS_HOOK = "pytest_prob_markdown_sections"
STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


@dataclass
class MarkdownState:
    """Per-config state (aggregating process only): ``--prob-markdown`` as given and made
    absolute at ``pytest_configure`` (a test may change the working directory), or ``None``,
    and the lines to print after the report, one per failed write."""

    shown: str | None = None
    path: Path | None = None
    errors: list[str] = field(default_factory=list)


STATE_KEY = pytest.StashKey[MarkdownState]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Add this extension's hooks unless the loader already did (it adds every bundled
    extension's hooks; this covers ``-p pytest_probability.extensions.markdown.plugin``).
    Called once when this module registers, in every process."""
    caller = getattr(pluginmanager.hook, SECTIONS_HOOK, None)
    if caller is None or getattr(caller, "spec", None) is None:
        pluginmanager.add_hookspecs(hookspecs)


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--prob-markdown`` / ``prob_markdown``. Called by the kernel's historic
    hook, in every process."""
    options.add(
        "markdown",
        parse=parse_text,
        cli="--prob-markdown",
        ini="prob_markdown",
        metavar="PATH",
        help="write a Markdown summary (table, gates, cost) to PATH",
        owner="markdown",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Check the ``--prob-markdown`` path and remember it, made absolute, in the aggregating
    process.

    Called once per process after the kernel resolved the settings; raises
    :class:`pytest.UsageError` (exit 4) for a path that cannot take the file (missing
    directories are fine: they are created at the end).
    """
    if not is_active(config) or hasattr(config, "workerinput"):
        return
    shown = option_value(config, "markdown")
    path = None
    if shown is not None:
        path = claim_output(config, "--prob-markdown", shown, "the summary").path
    config.stash[STATE_KEY] = MarkdownState(shown=shown, path=path)


@pytest.hookimpl(trylast=True)
def pytest_prob_markdown_step_summary(config: pytest.Config) -> str:
    """The default job summary file: ``$GITHUB_STEP_SUMMARY``, or ``""`` (none).

    Called once at the end of the session in the aggregating process, when no other
    implementation answered; returns the path or ``""``."""
    return os.environ.get(STEP_SUMMARY_ENV, "").strip()


def collect_sections(report: dict[str, Any], config: pytest.Config) -> list[MarkdownSection]:
    """Every implementation's sections, in hook order, each called through the extension
    boundary; one that fails (raises, also ``SystemExit``, or answers something other than
    sections) becomes a marked section naming the extension and the error, in its place."""
    sections: list[MarkdownSection] = []

    def taken(answer: Any) -> str | None:  # (checked and kept in hook order, failures too)
        found = [answer] if isinstance(answer, MarkdownSection) else answer
        if not isinstance(found, (list, tuple)):
            return f"expected MarkdownSection objects, got {type(answer).__name__}"
        bad = [item for item in found if not isinstance(item, MarkdownSection)]
        if bad:
            return f"expected MarkdownSection objects, got {type(bad[0]).__name__}"
        sections.extend(found)
        return None

    def failed(name: str, exc: BaseException) -> None:
        message = f"extension {name!r} failed: {type(exc).__name__}: {exc}"
        sections.append(MarkdownSection(f"{name} (failed)", message))

    api.call_hook(config, SECTIONS_HOOK, check=taken, failed=failed, report=report, config=config)
    return sections


def build_summary(config: pytest.Config, exit_status: int) -> str:
    """The summary's Markdown, from the report document as ``--prob-json`` builds it. Its
    ``records`` are all serialised only when an extension implements
    ``pytest_prob_markdown_sections``: the summary itself shows only the first failing run
    of each case. Raises whatever building fails with.
    """
    document = report_document(config, exit_status)
    with_sections = bool(getattr(config.hook, SECTIONS_HOOK).get_hookimpls())
    if not with_sections:
        document["records"] = first_failures(results_of(config))
    # the same strict JSON the report file holds (non-finite numbers are null)
    report = json.loads(dump_report(document))
    sections = collect_sections(report, config) if with_sections else []
    return render.render_markdown(report, sections)


def first_failures(results: Results) -> list[dict[str, Any]]:
    """The first failing or errored run of each case, with the report's record fields the
    summary reads (``case`` is the row's displayed id, as in the report)."""
    found = []
    for case in results.cases():
        for record in case.ordered_records():
            if record.get("outcome") in (FAIL, ERROR):
                fields = {key: record.get(key) for key in ("run", "outcome", "message")}
                found.append({"case": case.display, **fields})
                break
    return found


#: What the job summary file may hold at most: GitHub drops a step summary over 1 MiB whole.
STEP_SUMMARY_BYTES = 1_000_000


def append_file(path: Path, markdown: str, cap: int = STEP_SUMMARY_BYTES) -> None:
    """Append ``markdown`` to ``path`` (created if missing), after a blank line when the file
    already has content, so the summary starts a block of its own, cut at a line so that the
    file stays within ``cap`` bytes, with a note saying so. A pipe or device is written
    through the report writer, which never waits forever for a reader. Raises ``OSError``."""
    if is_stream(path):
        api.write_atomic(path, capped(markdown, cap))
        return
    with open(path, "a+b") as handle:
        size = handle.seek(0, os.SEEK_END)
        separator = b""
        if size:
            handle.seek(size - 1)
            separator = b"\n" if handle.read(1) == b"\n" else b"\n\n"
        room = cap - size - len(separator)
        handle.write(separator + capped(markdown, room).encode("utf-8"))


def capped(markdown: str, room: int) -> str:
    """``markdown`` if its UTF-8 fits in ``room`` bytes, else its first lines that fit with
    a note naming the cap (nothing when not even the note fits)."""
    if len(markdown.encode("utf-8")) <= room:
        return markdown
    note = (
        f"\n_The summary is cut here: a job summary holds at most {STEP_SUMMARY_BYTES:,} "
        "bytes (GitHub drops a larger one whole); --prob-json and --prob-markdown keep it all._\n"
    )
    budget = room - len(note.encode("utf-8"))
    if budget < 0:
        return ""
    kept = markdown.encode("utf-8")[:budget].decode("utf-8", "ignore")
    return kept[: kept.rfind("\n") + 1] + note


def _same_file(first: Path, second: Path) -> bool:
    try:
        return first.resolve() == second.resolve() or (
            first.exists() and second.exists() and os.path.samefile(first, second)
        )
    except OSError:
        return False


def _not_a_path(answer: Any) -> str | None:
    path = os.fspath(answer) if isinstance(answer, (str, os.PathLike)) else None
    if isinstance(path, str) and "\0" not in path:
        return None
    return f"answered {answer!r:.200}, not a file path"


def step_summary(config: pytest.Config) -> Path | None:
    """The job summary file ``pytest_prob_markdown_step_summary`` names, asked before the
    reports are written (an implementation that interrupts changes the exit status they
    carry); ``None`` for none. An implementation's bug costs the job summary, nothing more:
    it is warned about, named."""
    if not is_active(config) or not recorded_runs(config):
        return None
    answer = api.call_first(
        config, "pytest_prob_markdown_step_summary", check=_not_a_path, config=config
    )
    where = config.invocation_params.dir  # (a relative path is relative to it)
    return where / Path(os.fspath(answer)).expanduser() if answer else None


def write_summaries(
    config: pytest.Config, state: MarkdownState, exit_status: int, target: Path | None
) -> list[str]:
    """Render the summary and write it to every target (``target``: the job summary file);
    returns one error line per failure (and none when there was nothing to write). Never
    raises."""
    if not is_active(config) or report_of(config) is None or not recorded_runs(config):
        return []  # no bench run produced a result (--collect-only, --prob-plan): no summary
    errors = []
    if state.path is None and target is None:
        return []
    try:
        markdown = build_summary(config, exit_status)
    except Exception as exc:  # a bug here must not hide the session's results
        return [f"could not build the Markdown summary: {type(exc).__name__}: {exc}"]
    if state.path is not None:
        try:  # (the writer is read at each write: a test may replace it)
            api.write_atomic(state.path, markdown)
            api.note_written(config, "Markdown summary", str(state.shown), state.path)
        except Exception as exc:  # any failure is one warning line naming the file
            errors.append(write_failure("the Markdown summary", str(state.shown), exc))
    if target is not None and not (state.path is not None and _same_file(state.path, target)):
        what = "the job summary"
        try:  # (a file another writer writes, or a source file, is not appended to)
            claim_output(config, "GITHUB_STEP_SUMMARY", target, what)
        except pytest.UsageError as exc:
            reason = str(exc).partition(f": cannot write {what}: ")[2] or str(exc)
            return [*errors, f"could not append the Markdown summary to {target}: {reason}"]
        try:
            append_file(target, markdown)
            api.note_written(config, "Markdown summary appended to", str(target), target)
        except Exception as exc:  # any failure is one warning line naming the file
            reason = getattr(exc, "strerror", None) or exc
            errors.append(f"could not append the Markdown summary to {target}: {reason}")
    return errors


# trylast: the innermost wrapper, inside the terminal reporter's (which prints the summary
# after its yield) however late this extension registered
@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> Generator[None, None, None]:
    """Write the Markdown summary once the kernel built the report (aggregating process
    only; also after Ctrl-C, like the JSON report).

    Wraps ``pytest_sessionfinish`` so that it runs after the kernel's implementation, and
    before the terminal summary is printed. Leaves the exit status alone, even when a write
    fails.
    """
    config = session.config
    state = config.stash.get(STATE_KEY, None)
    writing = state is not None and not hasattr(config, "workerinput")
    target = step_summary(config) if writing else None
    result = yield
    if writing:
        state.errors = write_summaries(config, state, int(session.exitstatus), target)
    return result


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print one ``WARNING:`` line per failed write after the report. Called once in the
    aggregating process at the end of the terminal summary."""
    state = terminalreporter.config.stash.get(STATE_KEY, None)
    for error in state.errors if state else ():
        terminalreporter.write_line(f"WARNING: {visible(error)}", yellow=True, bold=True)
