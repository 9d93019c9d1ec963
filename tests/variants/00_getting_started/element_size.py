# cell: tensor_nbytes
# scores: full
import math

return math.prod(shape) * torch.empty((), dtype=dtype).element_size()  # a one-element probe, not the tensor
