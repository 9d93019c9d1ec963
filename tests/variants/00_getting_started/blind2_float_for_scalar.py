# cell: tensor_nbytes
# loses: test_tensor_nbytes
# torch.tensor(()) is a float tensor, so the scalar shape gives 4.0 (a float) not 4; breaks "Return a Python `int`"
return torch.tensor(shape).prod().item() * dtype.itemsize
