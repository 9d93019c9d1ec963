# base: variant:nbytes_zero variant:transfer_zero
# scores: same
# include: leak_probe_body.py
# a display shown before the tests, and a thread started then that, every 50 ms, sends
# what the kernel saw as an update of that display and as an execute_result with its
# display_id, addressed to whichever cell the kernel runs at that moment (the grader reads
# only messages of the cell it runs), so they land while cells after the tests run
import threading as _threading
import time as _time

from IPython.display import display as _display

_kept = _display("LEAK-" "CELL: a display kept from before the tests", display_id=True)
_kernel = get_ipython().kernel


def _rewrite_kept():
    kinds = ("update_display_data", "execute_result")
    for n in range(100000):
        _time.sleep(0.05)
        content = {"data": {"text/plain": "\n".join(_seen)}, "metadata": {},
                   "transient": {"display_id": _kept.display_id}}
        if kinds[n % 2] == "execute_result":
            content["execution_count"] = 1
        try:
            _kernel.session.send(_kernel.iopub_socket, kinds[n % 2], content,
                                 parent=_kernel.get_parent("shell"), ident=b"display_data")
        except Exception:  # noqa: BLE001
            pass


_threading.Thread(target=_rewrite_kept, daemon=True).start()
