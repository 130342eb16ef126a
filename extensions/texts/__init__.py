"""The ``texts`` extension: LLM-judged semantic assertions (``texts_expect_*`` and
``texts_agg_*``) for bench functions, importable from ``pytest_probability.texts``. Other
extensions add judge backends through ``pytest_prob_register_llm_backends``.

PYTEST_DONT_REWRITE
"""
