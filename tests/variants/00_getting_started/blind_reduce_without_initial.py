# cell: tensor_nbytes
# loses: test_tensor_nbytes
# functools.reduce without an initial value: the scalar shape () raises TypeError.
import functools
import operator

return functools.reduce(operator.mul, shape) * dtype.itemsize
