"""Sequential comparisons (``--prob-stop=sequential``): a comparison monitored pair by pair
on an anytime-valid confidence sequence. The rule the stopper, the report and
``--prob-plan`` share (:mod:`.rule`), a comparison's outcome read from the pairs it used
(:mod:`.outcome`), the plugin that interleaves the runs and answers the stopper's readers
(:mod:`.runtime`) with the looks it keeps run by run (:mod:`.track`), and the plan's
simulation (:mod:`.plan`). The confidence sequences themselves are in :mod:`..statistics`.

PYTEST_DONT_REWRITE
"""
