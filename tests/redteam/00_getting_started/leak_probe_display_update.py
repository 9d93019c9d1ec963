# base: variant:nbytes_zero variant:transfer_zero
# scores: same
# include: leak_probe_body.py
# a display shown before the tests (so the feedback keeps it), rewritten after every later
# cell with all the kernel saw: IPython's DisplayHandle.update sends update_display_data,
# which the grader's client applied to each earlier output of that display_id
from IPython.display import display as _display

_kept = _display("LEAK-" "CELL: a display kept from before the tests", display_id=True)
get_ipython().events.register("post_run_cell", lambda result: _kept.update("\n".join(_seen)))
