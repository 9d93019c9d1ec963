# cell: tensor_nbytes
# region: 1
# scores: full
# Correct, functional style: fold the dimensions into the per-element size with reduce, starting
# from dtype.itemsize (so () gives one element's bytes); Python ints, no tensor created.
import functools
import operator

return functools.reduce(operator.mul, shape, dtype.itemsize)
