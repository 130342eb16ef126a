"""Property tests: random bench suites and flag sets, run in pytest sessions, checked against
the invariants registered in prop_invariants.py (docs/internals.rst, "The property suite").

The ci profile (the default) is derandomized: the same examples on every run, a few per
relation. ``PROB_PROPERTY_PROFILE=slow`` runs ten times as many, from a random seed.
"""

from __future__ import annotations

import prop_invariants  # noqa: F401  (registers the invariants)
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from prop_harness import RELATIONS, Relation, Runner, profile_settings, run_relation
from prop_suites import examples

pytestmark = [pytest.mark.subprocess, pytest.mark.property]


@pytest.mark.parametrize("item", RELATIONS, ids=lambda item: item.name.replace(" ", "-"))
def test_relation(
    item: Relation, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = Runner(pytester, monkeypatch)

    @profile_settings(item.examples)
    @given(data=st.data())
    def explore(data: st.DataObject) -> None:
        example = data.draw(examples(budget=item.budget, max_functions=item.max_functions))
        assume(item.sessions(example) is not None)
        known = item.known(example)
        assume(known is None)  # a seam known to fail today (the reason names the issue)
        run_relation(runner, item, example)

    explore()
