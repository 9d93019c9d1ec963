# cell: tensor_nbytes
# region: 1
# loses: test_tensor_nbytes
# Returns a 0-dim torch.int64 tensor, not a Python int (it compares == to the right int, so only a
# type check sees it). Breaks "Return a Python int" (and it also wraps for byte counts >= 2**63).
return torch.tensor(shape, dtype=torch.int64).prod() * dtype.itemsize
