# cell: tensor_nbytes
# region: 1
# loses: test_tensor_nbytes
# Uses torch._utils._element_size, which goes through finfo/iinfo: right for bool, complex,
# quantized and float4_e2m1fn_x2, but raises TypeError for the sub-byte integer dtypes
# (torch.int4, torch.uint1, ...) and the bits dtypes. Breaks "dtype any PyTorch dtype ... the
# sub-byte ones included".
import math

from torch._utils import _element_size

return math.prod(shape) * _element_size(dtype)
