# cell: zero_predictions
# region: 2
# loses: test_zero_predictions
# Counts the gradients' reduce-scatter (DDP: the allreduce) at 4 bytes when dtype is bfloat16 ("reduce in FP32",
# as mixed-precision recipes do), the all-gathers at 2. The contract: gradients and gathered parameters travel in
# the parameters' dtype. The visible checks use float32 only.
_check_zero_args(n_params, world_size, stage, dtype)
width = torch.tensor([], dtype=dtype).element_size()
grad_width = 4 if dtype == torch.bfloat16 else width
one = (world_size - 1) * (-(-n_params // world_size))
gathers = 2 if stage == 3 else 1
return one * grad_width + gathers * one * width
