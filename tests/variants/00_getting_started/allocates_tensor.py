# cell: tensor_nbytes
# loses: test_tensor_nbytes
return torch.zeros(shape, dtype=dtype).nbytes
