# cell: tensor_nbytes
# region: 1
# loses: test_tensor_nbytes
# Avoids torch allocation but builds a one-byte-per-element numpy buffer of the shape to count its
# elements. Breaks "without allocating it": memory grows with the shape, and shapes of billions
# of elements fail (MemoryError / ValueError "array is too big").
import numpy as np

return np.empty(shape, dtype=np.uint8).size * dtype.itemsize
