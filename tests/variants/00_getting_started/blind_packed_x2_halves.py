# cell: tensor_nbytes
# loses: test_tensor_nbytes
# Reads "one byte holding two 4-bit numbers" as the shape counting 4-bit numbers: halves the
# bytes of the packed x2 dtype.
import math

numel = math.prod(shape)
if str(dtype).endswith("_x2"):
    return (numel + 1) // 2
return numel * dtype.itemsize
