# cell: pipeline_schedule
# loses: test_pipeline_schedule
# "1F1B" that runs every forward first: AFAB under another name, holding all m activations.
p, m = num_stages, num_microbatches
if kind not in ("afab", "1f1b"):
    raise ValueError(f"kind must be 'afab' or '1f1b', got {kind!r}")
if p < 1 or m < 1:
    raise ValueError(f"num_stages and num_microbatches must be >= 1, got {p} and {m}")
return [[("F", i) for i in range(m)] + [("B", i) for i in range(m)] for _ in range(p)]
