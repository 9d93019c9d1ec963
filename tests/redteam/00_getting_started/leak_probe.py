# base: variant:nbytes_zero variant:transfer_zero
# scores: same
# include: leak_probe_body.py
