# base: variant:nbytes_zero variant:transfer_zero
# scores: same
# include: leak_probe_body.py
# a display shown before the tests, then, after every later cell, a new display of all the
# kernel saw under the same display_id: the grader's client wrote its data into every
# earlier output of that id (the kept one included), whatever happened to the new one
from IPython.display import display as _display

_kept = _display("LEAK-" "CELL: a display kept from before the tests", display_id=True)
get_ipython().events.register(
    "post_run_cell", lambda result: _display("\n".join(_seen), display_id=_kept.display_id))
