# cell: mixed_precision_step
# loses: test_mixed_precision_step
# The gradients cleared right after the optimizer uses them, so only after a step that was
# taken: a skipped step leaves its inf/NaN gradients behind, the next backward adds to them,
# and the next step is skipped too (the contract: the gradients start from zero).
with torch.autocast(device_type=X.device.type, dtype=dtype):
    loss = loss_fn(model(X), y)
scaler.scale(loss).backward()
params = [p for group in optimizer.param_groups for p in group["params"]]
found_inf = scaler.unscale_(params)
if not found_inf:
    optimizer.step()
    optimizer.zero_grad()
scaler.update(found_inf)
return loss.item(), not found_inf
