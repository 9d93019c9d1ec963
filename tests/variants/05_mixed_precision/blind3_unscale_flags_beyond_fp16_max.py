# cell: unscale_grads
# loses: test_unscale_grads
# Breaks "True if any gradient contains inf, -inf or NaN, else False": the learner took
# "overflow" to mean "does not fit FP16" and flags any unscaled gradient whose magnitude is above
# FP16's largest value 65504 (and NaN). inf and NaN are found, but a finite FP32 gradient such as
# 1e5 after unscaling is reported as an overflow, and the caller would skip a good step.
FP16_MAX = torch.finfo(torch.float16).max
found = False
for p in params:
    if p.grad is None:
        continue
    p.grad.div_(scale)
    if bool(torch.isnan(p.grad).any()) or bool((p.grad.abs() > FP16_MAX).any()):
        found = True
return found
