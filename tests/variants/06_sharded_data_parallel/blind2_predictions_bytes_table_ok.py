# cell: zero_predictions
# scores: full
# Correct, another style: per-element byte counts in tables, the shard count from math.ceil on exact integers
# (-(-n // N)), the optimizer validated first with a ValueError naming it; traffic counts the collectives
# (stage 0: allreduce = RS + AG; 1, 2: RS + AG; 3: RS + 2 AG) each as (N-1) padded shards in the parameters' dtype.
if optimizer not in ("sgd", "momentum", "adam"):
    raise ValueError(f"optimizer must be 'sgd', 'momentum' or 'adam', got {optimizer!r}")
_check_zero_args(n_params, world_size, stage, dtype)
width = {torch.float64: 8, torch.float32: 4, torch.bfloat16: 2}[dtype]
states = {"sgd": 0, "momentum": 1, "adam": 2}[optimizer]
if dtype == torch.bfloat16:
    opt_width = 4 + 4 * states  # the FP32 master copy, then the FP32 state
else:
    opt_width = width * states
shard = -(-n_params // world_size)
count = {"params": n_params if stage < 3 else shard,
         "grads": n_params if stage < 2 else shard,
         "optimizer": n_params if stage < 1 else shard}
return {"params": count["params"] * width, "grads": count["grads"] * width,
        "optimizer": count["optimizer"] * opt_width}
# region: 2
_check_zero_args(n_params, world_size, stage, dtype)
width = torch.tensor([], dtype=dtype).element_size()
one_collective = (world_size - 1) * (-(-n_params // world_size)) * width
collectives = 3 if stage == 3 else 2  # RS + AG (an allreduce is both); ZeRO-3 gathers twice
return collectives * one_collective
