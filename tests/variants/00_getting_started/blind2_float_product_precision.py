# cell: tensor_nbytes
# region: 1
# loses: test_tensor_nbytes
# Multiplies the dimensions in a float accumulator and converts back with int(): exact only while
# the element count is below 2**53. Breaks "shapes reach billions of elements ... product below
# 2**63" and the exact Python int answer: e.g. shape (2**53 + 1,) uint8 gives 2**53 bytes.
numel = 1.0
for dim in shape:
    numel *= dim
return int(numel) * dtype.itemsize
