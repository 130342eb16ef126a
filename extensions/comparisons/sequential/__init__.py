"""Sequential comparisons (``--prob-stop=sequential``), monitored pair by pair on
group-sequential boundaries over the planned pairs (``horizon``) or a confidence sequence
valid at every look (``anytime``); the statistics themselves are in :mod:`..statistics`.

PYTEST_DONT_REWRITE
"""
