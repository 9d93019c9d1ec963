# cell: mixed_precision_step
# loses: test_mixed_precision_step
# Only the model under autocast; the loss computed outside it, on the low-precision output.
optimizer.zero_grad()
with torch.autocast(device_type=X.device.type, dtype=dtype):
    out = model(X)
loss = loss_fn(out, y)
scaler.scale(loss).backward()
params = [p for group in optimizer.param_groups for p in group["params"]]
found_inf = scaler.unscale_(params)
if not found_inf:
    optimizer.step()
scaler.update(found_inf)
return loss.item(), not found_inf
