"""Sequential comparisons (``--prob-stop=sequential``): a comparison monitored pair by pair
on an anytime-valid confidence sequence. Its setting (:mod:`.options`), the rule the
stopper, the report and ``--prob-plan`` share (:mod:`.rule`), a comparison's outcome read
from the pairs it used (:mod:`.outcome`), baseline margins on the sequence
(:mod:`.baseline`), the plugin that interleaves the runs and answers the stopper's readers
(:mod:`.runtime`) with the looks it keeps run by run (:mod:`.track`), keeping a monitored
function on one pytest-xdist worker (:mod:`.units`), the plan's simulation (:mod:`.plan`)
and what stopping saved (:mod:`.report`). The confidence sequences themselves are in
:mod:`..statistics`.

PYTEST_DONT_REWRITE
"""
