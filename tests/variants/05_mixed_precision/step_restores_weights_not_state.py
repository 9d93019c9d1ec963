# cell: mixed_precision_step
# loses: test_mixed_precision_step
# always calls optimizer.step(), then on overflow copies the old weights back: the momentum buffers keep the inf/NaN step
optimizer.zero_grad(set_to_none=True)
with torch.autocast(device_type=X.device.type, dtype=dtype):
    loss = loss_fn(model(X), y)
scaler.scale(loss).backward()
params = [p for group in optimizer.param_groups for p in group["params"]]
found_inf = scaler.unscale_(params)
saved = [p.detach().clone() for p in params]
optimizer.step()
if found_inf:
    with torch.no_grad():
        for p, s in zip(params, saved):
            p.copy_(s)
scaler.update(found_inf)
return loss.item(), not found_inf
