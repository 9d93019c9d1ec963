# cell: tensor_nbytes
# loses: test_tensor_nbytes
# "Fixes" the scalar case with `or 1`: a shape with a 0 dimension (an empty tensor, 0 bytes)
# is counted as one element.
import math

return (math.prod(shape) or 1) * dtype.itemsize
