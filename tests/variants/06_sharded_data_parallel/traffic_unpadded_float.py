# cell: zero_predictions
# region: 2
# loses: test_zero_predictions
# 2(N-1)/N x the bytes as a float, without padded shards
_check_zero_args(n_params, world_size, stage, dtype)
nbytes = n_params * torch.tensor([], dtype=dtype).element_size()
return (3 if stage == 3 else 2) * (world_size - 1) / world_size * nbytes
