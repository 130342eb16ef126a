"""Property tests: random bench suites and flag sets, run in pytest sessions, checked against
the invariants registered in prop_invariants.py (docs/internals.rst, "The property suite").

The ci profile (the default) is derandomized: the same examples on every run, a few per
relation. ``PROB_PROPERTY_PROFILE=slow`` runs ten times as many, from a random seed.
"""

from __future__ import annotations

import prop_invariants  # noqa: F401  (registers the invariants)
import prop_replay  # noqa: F401  (the exact replay of --prob-stop, and its relation)
import pytest
from hypothesis import assume, event, given
from hypothesis import strategies as st
from prop_harness import RELATIONS, Relation, Runner, profile_settings, run_relation
from prop_suites import examples

pytestmark = [pytest.mark.subprocess, pytest.mark.property]


@pytest.mark.parametrize("item", RELATIONS, ids=lambda item: item.name.replace(" ", "-"))
def test_relation(
    item: Relation, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = Runner(pytester, monkeypatch)
    seen = {"examples": 0, "stopped": 0, "combined": 0}

    @profile_settings(item.examples)
    @given(data=st.data())
    def explore(data: st.DataObject) -> None:
        example = data.draw(
            examples(budget=item.budget, max_functions=item.max_functions, bias=item.bias)
        )
        assume(item.sessions(example) is not None)
        known = item.known(example)
        assume(known is None)  # a seam known to fail today (the reason names the issue)
        sessions = run_relation(runner, item, example).values()
        stopped = any(
            ((s.report or {}).get("stopping") or {}).get("stopped_cases") for s in sessions
        )
        combined = any(getattr(s.extra.get("replay"), "combined", 0) for s in sessions)
        event("a session stopped a case" if stopped else "no session stopped a case")
        event("the replay followed a case with several checks" if combined else "no combined case")
        seen["examples"] += 1
        seen["stopped"] += stopped
        seen["combined"] += combined

    explore()
    # a stopping relation that stops nothing checks nothing (hypothesis may have run fewer
    # examples than asked when it ran out of new ones: the share is of those it ran)
    assert seen["stopped"] >= item.min_stopped * seen["examples"], (
        f"only {seen['stopped']} of {seen['examples']} examples stopped a case"
    )
    assert seen["combined"] >= item.min_combined * seen["examples"], (
        f"only {seen['combined']} of {seen['examples']} examples replayed a case with "
        "several checks"
    )
