# cell: tensor_nbytes
# loses: test_tensor_nbytes
# Counts bits, then divides by 8 with '/': the right number, but a float (4194304.0), and one
# that loses the low bytes of sizes beyond 2**53.
numel = 1
for size in shape:
    numel *= size
return numel * (dtype.itemsize * 8) / 8
