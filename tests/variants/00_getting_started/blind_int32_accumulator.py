# cell: tensor_nbytes
# loses: test_tensor_nbytes
# The element count in an int32 accumulator: wraps around past 2**31 elements (billions of
# parameters), though the visible shapes are small.
import numpy as np

return int(np.prod(np.array(shape, dtype=np.int32), dtype=np.int32)) * dtype.itemsize
