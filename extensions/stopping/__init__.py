"""The ``stopping`` extension: skip a gated case's remaining runs once they can no longer
change its verdict (``--prob-stop=curtail``). Rules register through
``pytest_prob_register_stopping_rules``."""
