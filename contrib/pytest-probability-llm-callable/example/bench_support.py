"""The example bench: a support bot's answer, judged against the expected one."""

from pytest_probability import current_run
from pytest_probability.texts import texts_expect_f1_range

EXPECTED = "Refunds are paid within 5 days. Call support to start one."


def bench_refund_answer() -> None:
    # a stand-in for your bot: run 3 forgets to say how to start the refund
    if current_run().run == 3:
        given = "Your refund is paid within 5 days."
    else:
        given = "You get the refund within 5 days; call us to start it."
    texts_expect_f1_range(EXPECTED, given, 0.9, 1.0)
