# cell: predict_chain
# scores: full
# Correct, written as the cost model's two terms (launches x overhead + elements read x cost per
# element), with a bool-safe int launch count; checks name the bad argument.
for name, value in (("k", k), ("n", n)):
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {name}={value!r}")
launches = int(k if not fused else min(k, 1))
elements_read = launches * n
seconds = float(launches * overhead_s + elements_read * seconds_per_element)
return launches, seconds
