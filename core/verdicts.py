"""Verdict items: one pytest item per gate or comparison verdict, after a case's last run.

An extension asks for one through ``pytest_prob_collect_verdicts`` by returning a
:class:`VerdictRequest`; the kernel creates the item (``identify_pii[gate]``), places it
after the case's last run (also under ``--prob-transpose``) and runs ``judge`` as its body.
Pure module: never imports pytest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class VerdictRequest:
    """A verdict item a case needs.

    :ivar kind: what stands in the brackets: ``gate``, ``compare:ARM``, ``baseline``.
    :ivar judge: called with the item when it runs, in the executing process; returns
        normally for a passing verdict, raises ``AssertionError`` (or calls
        ``pytest.fail``) with the verdict line for a failing one, or calls ``pytest.skip``.
    :ivar description: one line for ``--collect-only -v`` and the item's report.
    """

    kind: str
    judge: Callable[[Any], None]
    description: str = ""
