# cell: mixed_precision_step
# loses: test_mixed_precision_step
optimizer.zero_grad()
with torch.autocast(device_type=X.device.type, dtype=dtype):
    loss = loss_fn(model(X), y)
scaler.scale(loss).backward()
params = [p for group in optimizer.param_groups for p in group["params"]]
found_inf = scaler.unscale_(params)
if found_inf:
    for p in params:
        if p.grad is not None:
            p.grad.zero_()
optimizer.step()
scaler.update(found_inf)
return loss.item(), not found_inf
