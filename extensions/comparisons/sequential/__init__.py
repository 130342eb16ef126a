"""Sequential comparisons (``--prob-stop=sequential``), monitored pair by pair on an
anytime-valid confidence sequence (the sequences themselves are in :mod:`..statistics`).

PYTEST_DONT_REWRITE
"""
