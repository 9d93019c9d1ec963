# cell: tensor_nbytes
# loses: test_tensor_nbytes
# Reads the bits from the dtype's name ("float32" -> 32, "complex64" -> 64, bool special-cased):
# right for every byte-sized format, 0 bytes for sub-byte ones (torch.int4, torch.uint1) and
# for packed ones (torch.float4_e2m1fn_x2 holds two 4-bit values in each 1-byte element).
import math
import re

if dtype == torch.bool:
    return math.prod(shape)
bits = int(re.search(r"\d+", str(dtype).removeprefix("torch.")).group())
return math.prod(shape) * (bits // 8)
