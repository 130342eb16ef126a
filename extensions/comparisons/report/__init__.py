"""What the comparisons extension prints and writes: the printing rules shared by every
comparison line (:mod:`.render`), the ``probability: comparisons`` section and its JSON
(:mod:`.section`), and the plain-language readings of ``--prob-explain`` (:mod:`.explain`).

PYTEST_DONT_REWRITE
"""
