# cell: mixed_precision_step
# scores: full
# On overflow the gradients are dropped (set to None) and the optimizer still called: PyTorch's
# optimizers pass over parameters without a .grad, so nothing they hold changes.
optimizer.zero_grad(set_to_none=True)
with torch.autocast(device_type=X.device.type, dtype=dtype):
    out = model(X)
    loss = loss_fn(out, y)
scaler.scale(loss).backward()
held = [p for group in optimizer.param_groups for p in group["params"]]
overflow = bool(scaler.unscale_(held))
if overflow:
    for p in held:
        p.grad = None
optimizer.step()
scaler.update(overflow)
return float(loss.item()), not overflow
