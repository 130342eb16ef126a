"""The ``comparisons`` extension: compare the values of a parametrize axis (prompts, models)
input by input, with margins (non-inferiority, equivalence) that make a comparison a gate,
p-value adjustment over the session's family, and regression against a baseline report.
Other extensions add tests and adjustments through ``pytest_prob_register_comparison_tests``
and ``pytest_prob_register_p_adjustments``.

At the top: the hooks (:mod:`.hookspecs`, :mod:`.plugin`, which also answers
``--prob-stop``), what other extensions may ask (:mod:`.service`), the comparison test's
value types (:mod:`.registry`), the settings and registries (:mod:`.options`) and the
per-config state and the building of the session's comparisons (:mod:`.session`). By
concern: :mod:`.axis` (arms and inputs at collection, the verdict items), :mod:`.statistics`
(the pure math), :mod:`.report` (printing, the section, ``--prob-explain``),
:mod:`.baseline` (regression against a baseline) and :mod:`.sequential` (comparisons
monitored under ``--prob-stop=sequential``).

PYTEST_DONT_REWRITE
"""
