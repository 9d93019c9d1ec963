# cell: naive_allreduce
# loses: test_naive_allreduce
# a wide accumulator for every kind of dtype, but complex maps to complex64 ("the" complex type): complex128 sums round
if len(buffers) == 0:
    raise ValueError("buffers must hold one tensor per worker; got an empty list")
if buffers[0].is_complex():
    wide = torch.complex64
elif buffers[0].is_floating_point():
    wide = torch.float64
else:
    wide = torch.int64
total = torch.zeros_like(buffers[0], dtype=wide)
for b in buffers:
    total += b.to(wide)
return [total.to(buffers[0].dtype, copy=True) for _ in buffers]
