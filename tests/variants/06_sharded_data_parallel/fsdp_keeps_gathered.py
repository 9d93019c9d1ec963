# cell: fsdp_blocks
# region: 2
# loses: test_fsdp_blocks
# gathers before forward but frees only after backward (in grad_arrived): every block stays gathered from its forward to its backward, so the peak holds the whole model
self.gather()
out = self.block(x)
if out.requires_grad:
    self.waiting = len(self.params)
return out
