"""The start of a bench run, in its setup phase: skip it when an extension rules it out,
pace it with ``--prob-delay``, and make its run context current.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from time import sleep
from typing import TYPE_CHECKING, Any

import pytest

from .context import RunContext, enter_run

if TYPE_CHECKING:
    from ..kernel import Kernel


def start_run(kernel: Kernel, item: Any, collect: Any) -> object:
    """Start the run ``item`` (a ``BenchRun``; ``collect`` is its collection module): ask
    ``pytest_prob_skip_run`` (a reason skips it; an implementation that fails is a warning,
    never the run's error), sleep ``--prob-delay`` unless it is not the first run or the
    concurrency scheduler paces its start, then enter its run context. Returns the token
    that leaves the context at teardown."""
    item.stash[collect.CONTEXT_KEY] = RunContext(
        case_id=item.case.case_id, run=item.run, config=item.config
    )
    if kernel.config is not None and kernel.config.hook.pytest_prob_skip_run.get_hookimpls():
        try:
            reason = item.ihook.pytest_prob_skip_run(item=item, case=item.case)
        except (Exception, SystemExit) as exc:  # (UsageError and pytest.exit: pytest's)
            if isinstance(exc, (pytest.UsageError, pytest.exit.Exception)):
                raise
            reason = exc
        if isinstance(reason, str) and reason:
            raise pytest.skip.Exception(reason, _use_item_location=True)
        if reason is not None and not isinstance(reason, str):
            from ..report.safe_calls import skip_run_failed

            assert kernel.failures is not None
            skip_run_failed(kernel.failures, item, reason)
    delay = kernel.options.session_value("delay")
    if delay and kernel.runs_started and collect.PACED_KEY not in item.stash:
        sleep(delay)
    kernel.runs_started += 1
    # current from fixture setup through the body to fixture teardown
    return enter_run(item.stash[collect.CONTEXT_KEY])
