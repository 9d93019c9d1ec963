# cell: zero_predictions
# region: 2
# scores: full
# another way: count the collectives by name, then their shards
_check_zero_args(n_params, world_size, stage, dtype)
collectives = {0: ["reduce-scatter", "all-gather"], 1: ["reduce-scatter", "all-gather"],
               2: ["reduce-scatter", "all-gather"], 3: ["all-gather", "all-gather", "reduce-scatter"]}[stage]
shard_bytes = math.ceil(n_params / world_size) if n_params < 2**52 else -(-n_params // world_size)
return len(collectives) * (world_size - 1) * shard_bytes * {torch.float64: 8, torch.float32: 4, torch.bfloat16: 2}[dtype]
