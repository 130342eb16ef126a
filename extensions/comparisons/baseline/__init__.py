"""Regression against a baseline: every case compared with the same case of an earlier
report or saved baseline (``--prob-baseline``, ``--prob-margin``, ``--prob-save-baseline``).
Its settings (:mod:`.options`, declared at start-up without loading the rest), reading and
writing baseline files (:mod:`.files`), the regression plugin (:mod:`.regression`) and its
section, JSON object and saved file (:mod:`.report`).

PYTEST_DONT_REWRITE
"""
