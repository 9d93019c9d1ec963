# cell: mixed_precision_step
# region: 1
# loses: test_mixed_precision_step
# Zeroes the gradients d2l-style through the model (p.grad = None for model.parameters()),
# but unscales and steps everything the optimizer holds. A parameter the optimizer holds
# outside the model (one used by loss_fn, e.g. a learnable temperature or a head kept apart)
# keeps its old gradient and adds the next one to it: breaks "the gradients start from zero
# ... for every parameter it holds" (seen from the second call on). The stale part is divided
# by the scale once more, so at scale 2^16 the error is only 1/S relative (2x at scale 1);
# after an overflow that reaches its gradient, the inf stays and every later step is skipped.
for p in model.parameters():
    p.grad = None
params = [p for group in optimizer.param_groups for p in group["params"]]
with torch.autocast(device_type=X.device.type, dtype=dtype):
    loss = loss_fn(model(X), y)
scaler.scale(loss).backward()
found_inf = bool(scaler.unscale_(params))
if not found_inf:
    optimizer.step()
scaler.update(found_inf)
return loss.item(), not found_inf
