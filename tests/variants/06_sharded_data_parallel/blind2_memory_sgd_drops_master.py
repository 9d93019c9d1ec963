# cell: zero_predictions
# loses: test_zero_predictions
# Counts the FP32 master copy only when the optimizer has state ("no state, nothing in the optimizer"): with
# dtype=bfloat16 and optimizer="sgd" it gives "optimizer": 0, where the contract puts the master copy under
# "optimizer" whatever the optimizer (4 bytes per element, sharded from stage 1). Every other case is right.
_check_zero_args(n_params, world_size, stage, dtype)
if optimizer not in ("sgd", "momentum", "adam"):
    raise ValueError(f"optimizer must be sgd, momentum or adam, got {optimizer!r}")
width = torch.tensor([], dtype=dtype).element_size()
states = {"sgd": 0, "momentum": 1, "adam": 2}[optimizer]
if states == 0:
    opt_width = 0
elif dtype == torch.bfloat16:
    opt_width = 4 * (1 + states)
else:
    opt_width = width * states
shard = -(-n_params // world_size)
return {"params": (shard if stage >= 3 else n_params) * width,
        "grads": (shard if stage >= 2 else n_params) * width,
        "optimizer": (shard if stage >= 1 else n_params) * opt_width}
# region: 2
_check_zero_args(n_params, world_size, stage, dtype)
width = torch.tensor([], dtype=dtype).element_size()
one_collective = (world_size - 1) * (-(-n_params // world_size)) * width
collectives = 3 if stage == 3 else 2  # RS + AG (an allreduce is both); ZeRO-3 gathers twice
return collectives * one_collective
