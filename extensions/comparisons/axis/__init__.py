"""Comparing the values of a parametrize axis: which arm and which input each case is
(:mod:`.arms`), and the work at collection and the verdict items (:mod:`.collection`).

PYTEST_DONT_REWRITE
"""
