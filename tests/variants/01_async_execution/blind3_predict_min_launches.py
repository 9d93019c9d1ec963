# cell: predict_chain
# scores: full
# Correct, another style: one validation loop that names the offending argument, launches as
# min(k, 1) when fused (0 for an empty chain, else 1), and seconds expanded as
# launches * overhead + launches * n * seconds_per_element (equal to the model within rounding).
for name, value in (("k", k), ("n", n)):
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {name}={value!r}")
launches = min(k, 1) if fused else k
return int(launches), float(launches * overhead_s + launches * n * seconds_per_element)
