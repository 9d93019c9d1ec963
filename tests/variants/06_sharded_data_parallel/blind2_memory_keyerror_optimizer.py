# cell: zero_predictions
# loses: test_zero_predictions
# Leaves the optimizer's validation to the dict lookup: an unknown optimizer ("lion", "Adam") raises KeyError,
# not the ValueError naming optimizer that the contract asks for (KeyError is no subclass of ValueError).
_check_zero_args(n_params, world_size, stage, dtype)
width = torch.tensor([], dtype=dtype).element_size()
states = {"sgd": 0, "momentum": 1, "adam": 2}[optimizer]
opt_width = 4 * (1 + states) if dtype == torch.bfloat16 else width * states
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
