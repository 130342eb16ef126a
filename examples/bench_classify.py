"""The pytest-probability demo: a nondeterministic classifier, sampled instead of trusted.

Run it (from the repository root or from this folder):

    pytest examples/ --prob-runs=10 -q --tb=line

Every case runs 10 times and gets its own pass-fraction row. The "model" is the offline toy
in ``toy_models.py``; each run draws from its own seed, so runs differ from each other but a
rerun reproduces them exactly.
"""

from __future__ import annotations

import pytest
from pytest_probability import current_run
from toy_models import classify  # the sibling module: pytest puts this folder on sys.path


def run_seed() -> str:
    """A seed unique to the executing case and run (``classify::identify_pii#3``)."""
    run = current_run()
    return f"{run.case_id}#{run.run}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Easy: right every time.
        pytest.param("is this a question?", "question", id="is_question"),
        # Hard: right about 70% of the time. One run would pass or fail by luck: FLAKY.
        pytest.param("my ssn is 078-05-1120", "pii", id="identify_pii"),
        # A blind spot: the model never flags phone numbers, so every run fails the same way
        # (pytest shows the introspected assert: 'other' == 'pii').
        pytest.param("call me on 555-010-0199 after six", "pii", id="phone_number"),
        # Right whenever it answers, but about three calls in ten time out: an error, not a
        # wrong answer, so the row reads "N ERRORED" instead of FLAKY.
        pytest.param("please summarise the attached 80-page contract", "other", id="long_document"),
    ],
)
def bench_classify(text: str, expected: str) -> None:
    response = classify(text, seed=run_seed())
    assert response.answer == expected


# A comparison axis: the same inputs under two prompt styles, each combination its own row.
@pytest.mark.parametrize("style", ["terse", "chain_of_thought"])
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("my card was charged twice", "billing", id="refund"),
        pytest.param("i forgot my password and the reset link expired", "account", id="password"),
    ],
)
def bench_triage(text: str, expected: str, style: str) -> None:
    response = classify(text, seed=run_seed(), style=style)
    assert response.answer == expected
