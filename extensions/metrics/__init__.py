"""The ``metrics`` extension: per-case metrics such as pass^k (reliability) and pass@k
(best-of-k), averaged per function and overall with the case bootstrap. Other extensions add
metrics, fixed names or parametric families, through ``pytest_prob_register_metrics``.

PYTEST_DONT_REWRITE
"""
