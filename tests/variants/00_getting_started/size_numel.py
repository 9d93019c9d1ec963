# cell: tensor_nbytes
# scores: full
# torch.Size counts the elements; the dtype's itemsize is the bytes of one.
return torch.Size(shape).numel() * dtype.itemsize
