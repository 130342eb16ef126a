"""Comparing the values of a parametrize axis while the session collects and runs: which arm
and which input each case is (:mod:`.arms`), the work at collection — ``[compare:ARM]``
requests, the runs a margin decides, the collection-time warnings, the run records'
``compare`` field (:mod:`.collection`) — and the compare items (:mod:`.items`).

PYTEST_DONT_REWRITE
"""
