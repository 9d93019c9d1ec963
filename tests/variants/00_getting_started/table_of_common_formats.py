# cell: tensor_nbytes
# loses: test_tensor_nbytes
# A table of the formats the course names, 4 bytes for anything else: torch.int16,
# torch.complex32, torch.uint16 and the other formats it forgot are counted wrong.
import math

sizes = {torch.float64: 8, torch.float32: 4, torch.float16: 2, torch.bfloat16: 2, torch.int64: 8,
         torch.int32: 4, torch.int8: 1, torch.uint8: 1, torch.bool: 1, torch.complex64: 8,
         torch.complex128: 16, torch.float8_e4m3fn: 1, torch.float8_e5m2: 1}
return math.prod(shape) * sizes.get(dtype, 4)
