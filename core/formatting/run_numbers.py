"""Formatting run numbers (``run 3``, ``runs 2–4, 6, 9, 10``) as the terminal's failure lines
and the HTML page's failure groups name them. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Sequence

#: Run numbers or ranges listed before ``…``.
MAX_RUN_PARTS = 10


def runs_text(runs: Sequence[int], limit: int = MAX_RUN_PARTS) -> str:
    """``run 3``, ``runs 2–4, 6, 9, 10``: the runs in ascending order, three or more
    consecutive ones as a range, at most ``limit`` parts (then ``…``). ``runs`` must not be
    empty."""
    ordered = sorted(runs)
    parts: list[str] = []
    start = previous = ordered[0]
    for run in [*ordered[1:], None]:
        if run is not None and run == previous + 1:
            previous = run
            continue
        if previous == start:
            parts.append(str(start))
        elif previous == start + 1:
            parts += [str(start), str(previous)]
        else:
            parts.append(f"{start}–{previous}")
        if run is not None:
            start = previous = run
    shown = ", ".join(parts[:limit]) + (", …" if len(parts) > limit else "")
    return f"{'run' if len(ordered) == 1 else 'runs'} {shown}"
