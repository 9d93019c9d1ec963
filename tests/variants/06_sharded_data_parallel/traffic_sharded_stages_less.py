# cell: zero_predictions
# region: 2
# loses: test_zero_predictions
# ZeRO-1/2 counted as a reduce-scatter only (the all-gather of the updated parameters forgotten)
_check_zero_args(n_params, world_size, stage, dtype)
one = (world_size - 1) * -(-n_params // world_size) * torch.tensor([], dtype=dtype).element_size()
return {0: 2 * one, 1: one, 2: one, 3: 3 * one}[stage]
