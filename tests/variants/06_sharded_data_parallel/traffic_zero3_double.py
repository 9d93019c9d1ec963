# cell: zero_predictions
# region: 2
# loses: test_zero_predictions
# ZeRO-3 as twice DDP's bytes (an all-gather and a reduce-scatter counted as two allreduces)
_check_zero_args(n_params, world_size, stage, dtype)
one = (world_size - 1) * -(-n_params // world_size) * torch.tensor([], dtype=dtype).element_size()
return 4 * one if stage == 3 else 2 * one
