"""Regression against a baseline (``--prob-baseline``, ``--prob-margin``,
``--prob-save-baseline``): reading and writing baseline files (:mod:`.files`) and the
regression plugin with its section (:mod:`.regression`).

PYTEST_DONT_REWRITE
"""
