# cell: fsdp_blocks
# region: 3
# scores: full
# another way: list-form all_gather into the pieces of the block's vector
refill_storage_(self.flat)
dist.all_gather(list(self.flat.chunk(self.world_size)), self.param_shard)
