# cell: zero_predictions
# loses: test_zero_predictions
# Shards the bytes instead of the elements: math.ceil(n_params * bytes / world_size) instead of
# ceil(n_params / world_size) * bytes. Equal when world_size divides n_params (the visible cases: 1000 / 4), short
# by up to bytes-1 per item otherwise (1001 elements, 4 ranks, float32: 1001 instead of 1004); the contract says a
# sharded item holds ceil(n_params / world_size) elements per rank.
_check_zero_args(n_params, world_size, stage, dtype)
if optimizer not in ("sgd", "momentum", "adam"):
    raise ValueError(f"optimizer must be sgd, momentum or adam, got {optimizer!r}")
width = torch.tensor([], dtype=dtype).element_size()
states = {"sgd": 0, "momentum": 1, "adam": 2}[optimizer]
opt_width = 4 * (1 + states) if dtype == torch.bfloat16 else width * states


def held(per_element, sharded):
    total = n_params * per_element
    return -(-total // world_size) if sharded else total


return {"params": held(width, stage >= 3), "grads": held(width, stage >= 2),
        "optimizer": held(opt_width, stage >= 1)}
# region: 2
_check_zero_args(n_params, world_size, stage, dtype)
width = torch.tensor([], dtype=dtype).element_size()
one_collective = (world_size - 1) * (-(-n_params // world_size)) * width
collectives = 3 if stage == 3 else 2  # RS + AG (an allreduce is both); ZeRO-3 gathers twice
return collectives * one_collective
