# base: solution
# scores: same
# include: leak_probe_body.py
