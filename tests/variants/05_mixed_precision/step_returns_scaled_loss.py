# cell: mixed_precision_step
# loses: test_mixed_precision_step
# returns the scaled loss (loss times the scale) instead of the loss
optimizer.zero_grad(set_to_none=True)
with torch.autocast(device_type=X.device.type, dtype=dtype):
    loss = loss_fn(model(X), y)
scaled = scaler.scale(loss)
scaled.backward()
params = [p for group in optimizer.param_groups for p in group["params"]]
found_inf = scaler.unscale_(params)
if not found_inf:
    optimizer.step()
scaler.update(found_inf)
return scaled.item(), not found_inf
