# cell: tf32_matmul
# scores: full
# Both inputs rounded in one call on their concatenated elements, split and reshaped back, then torch.matmul
# (the function behind @): same bits for the inputs, FP32 accumulation.
rounded = round_to_tf32(torch.cat([a.reshape(-1), b.reshape(-1)]))
ra = rounded[:a.numel()].reshape(a.shape)
rb = rounded[a.numel():].reshape(b.shape)
return torch.matmul(ra, rb)
