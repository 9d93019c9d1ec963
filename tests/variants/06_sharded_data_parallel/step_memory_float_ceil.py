# cell: zero_predictions
# loses: test_zero_predictions
# region: 1
# wrong: "A sharded item holds ceil(n_params / world_size) elements per rank" (n_params any int >= 0): the shard is math.ceil(n_params / world_size) with float division, which drops the remainder once n_params passes 2**53 (e.g. 2**53 + 1 on 2 ranks gives 2**52, not 2**52 + 1); right for every model that exists today
_check_zero_args(n_params, world_size, stage, dtype)
states = {"sgd": 0, "momentum": 1, "adam": 2}
if optimizer not in states:
    raise ValueError(f"optimizer must be 'sgd', 'momentum' or 'adam', got {optimizer!r}")
size = torch.tensor([], dtype=dtype).element_size()
per_param = 4 * (1 + states[optimizer]) if dtype == torch.bfloat16 else size * states[optimizer]
shard = math.ceil(n_params / world_size)
return {"params": (shard if stage >= 3 else n_params) * size,
        "grads": (shard if stage >= 2 else n_params) * size,
        "optimizer": (shard if stage >= 1 else n_params) * per_param}
