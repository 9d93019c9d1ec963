# cell: tensor_nbytes
# region: 1
# scores: full
# Correct: torch.Size(shape).numel() counts elements (1 for (), 0 with a zero dim) as a Python int
# without allocating, and dtype.itemsize is the bytes per element for every dtype; the product
# is done in Python ints, so it is exact.
return torch.Size(shape).numel() * dtype.itemsize
