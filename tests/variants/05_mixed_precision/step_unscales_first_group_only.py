# cell: mixed_precision_step
# loses: test_mixed_precision_step
# The optimizer's parameters read from its first parameter group only.
optimizer.zero_grad()
with torch.autocast(device_type=X.device.type, dtype=dtype):
    loss = loss_fn(model(X), y)
scaler.scale(loss).backward()
found_inf = scaler.unscale_(optimizer.param_groups[0]["params"])
if not found_inf:
    optimizer.step()
scaler.update(found_inf)
return loss.item(), not found_inf
