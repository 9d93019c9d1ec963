# cell: tensor_nbytes
# loses: test_tensor_nbytes
# np.prod for the element count: a numpy.int64 rather than an int, and for the scalar shape ()
# a numpy.float64 (np.prod of an empty tuple is 1.0).
import numpy as np

return np.prod(shape) * dtype.itemsize
