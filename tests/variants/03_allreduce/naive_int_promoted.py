# cell: naive_allreduce
# loses: test_naive_allreduce
return [torch.stack(buffers).sum(0) for _ in buffers]  # sum() promotes int32 to int64
