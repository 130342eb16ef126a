"""What the comparisons extension prints and writes: lines, section, ``--prob-explain``.

PYTEST_DONT_REWRITE
"""
