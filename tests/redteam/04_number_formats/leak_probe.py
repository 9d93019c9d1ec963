# base: solution
# scores: at most same
# (at most: 04's source check refuses any submission that patches a library, as this
# probe patches labkit.judge.learner, so it may lose test_round_to_bf16_no_cast)
# include: leak_probe_body.py
