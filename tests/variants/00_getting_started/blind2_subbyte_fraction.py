# cell: tensor_nbytes
# loses: test_tensor_nbytes
# counts int1..int7 / uint1..uint7 as bits/8 of a byte each (torch.int4 on 10 elements -> 5);
# breaks "PyTorch keeps a `torch.int4` or `torch.uint1` element in a whole byte"
import math
import re

numel = math.prod(shape)
match = re.fullmatch(r"u?int([1-7])", str(dtype).removeprefix("torch."))
if match:
    return math.ceil(numel * int(match.group(1)) / 8)
return numel * dtype.itemsize
