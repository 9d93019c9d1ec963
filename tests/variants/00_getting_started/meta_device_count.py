# cell: tensor_nbytes
# scores: full
# A tensor on the meta device has a shape and a dtype but no memory: torch counts its bytes.
return torch.empty(shape, dtype=dtype, device="meta").nbytes
