"""The comparisons' pure math, which never imports pytest: the bundled ``paired`` test and
the assembly of a comparison (:mod:`.engine`), one paired input (:mod:`.paired`), many
(:mod:`.signflip`), p-value adjustments (:mod:`.adjust`), and the two anytime-valid
confidence sequences of sequential comparisons: the mixture sequence for one input
(:mod:`.mixture`) and the empirical-Bernstein sequence over rounds of several
(:mod:`.bernstein`).

PYTEST_DONT_REWRITE
"""
