# cell: tensor_nbytes
# loses: test_tensor_nbytes
# Bits per element from finfo/iinfo, with bool special-cased: a complex dtype gets the bits of
# its real part alone (4 bytes for complex64), and the quantized and sub-byte dtypes have no info.
import math

if dtype == torch.bool:
    size = 1
elif dtype.is_floating_point or dtype.is_complex:
    size = torch.finfo(dtype).bits // 8
else:
    size = torch.iinfo(dtype).bits // 8
return math.prod(shape) * size
