"""The ``comparisons`` extension: compare the values of a parametrize axis (prompts, models)
input by input, with margins (non-inferiority, equivalence) that make a comparison a gate,
p-value adjustment over the session's family, and regression against a baseline report.
Other extensions add tests and adjustments through ``pytest_prob_register_comparison_tests``
and ``pytest_prob_register_p_adjustments``.

PYTEST_DONT_REWRITE
"""
