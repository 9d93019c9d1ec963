# cell: naive_allreduce
# loses: test_naive_allreduce
# Sums in float64 "for accuracy", then casts back: exact for every float and for integers up to 2**53, not beyond.
total = torch.zeros_like(buffers[0], dtype=torch.float64)
for b in buffers:
    total += b
return [total.to(buffers[0].dtype) for _ in buffers]
