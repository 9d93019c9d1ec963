# cell: zero_adam
# region: 2
# scores: full
# ZeRO-3's gather with the list form of all_gather, into pieces of one new vector
if self.stage == 3:
    flat = torch.empty(self.shard * self.world_size, dtype=self.param_shard.dtype)
    dist.all_gather(list(flat.chunk(self.world_size)), self.param_shard)
    view_into_(self.params, flat)
