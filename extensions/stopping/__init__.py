"""The ``stopping`` extension: skip a gated case's remaining runs once they can no longer
change its verdict (``--prob-stop=curtail``), or judge rate gates on an anytime-valid
confidence sequence and stop as soon as it clears the bar (``--prob-stop=sequential``).
Rules register through ``pytest_prob_register_stopping_rules``.

PYTEST_DONT_REWRITE
"""
