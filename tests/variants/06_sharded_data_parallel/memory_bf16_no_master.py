# cell: zero_predictions
# region: 1
# loses: test_zero_predictions
# BF16 training without the FP32 master copy: the optimizer's bytes are only its state
_check_zero_args(n_params, world_size, stage, dtype)
states = {"sgd": 0, "momentum": 1, "adam": 2}
if optimizer not in states:
    raise ValueError(f"optimizer must be 'sgd', 'momentum' or 'adam', got {optimizer!r}")
size = torch.tensor([], dtype=dtype).element_size()
per_param = 4 * states[optimizer] if dtype == torch.bfloat16 else size * states[optimizer]
shard = -(-n_params // world_size)
return {"params": (shard if stage >= 3 else n_params) * size,
        "grads": (shard if stage >= 2 else n_params) * size,
        "optimizer": (shard if stage >= 1 else n_params) * per_param}
