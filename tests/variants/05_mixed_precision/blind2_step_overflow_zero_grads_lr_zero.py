# cell: mixed_precision_step
# region: 1
# loses: test_mixed_precision_step
# On an overflow, "neutralises" the step instead of skipping it: zeroes the garbage gradients,
# sets every group's lr to 0, calls optimizer.step(), restores lr. The weights do not move
# (lr 0), but the optimizer's state does: SGD's momentum buffers decay and take the weight
# decay term, Adam's step counts and moments advance. Breaks "a step whose gradients hold inf
# or NaN changes nothing the optimizer holds: neither the weights nor its state".
params = [p for group in optimizer.param_groups for p in group["params"]]
optimizer.zero_grad()
with torch.autocast(device_type=X.device.type, dtype=dtype):
    loss = loss_fn(model(X), y)
scaler.scale(loss).backward()
found_inf = bool(scaler.unscale_(params))
if found_inf:
    saved_lr = [group["lr"] for group in optimizer.param_groups]
    for p in params:
        if p.grad is not None:
            p.grad.zero_()
    for group in optimizer.param_groups:
        group["lr"] = 0.0
    optimizer.step()
    for group, lr in zip(optimizer.param_groups, saved_lr):
        group["lr"] = lr
else:
    optimizer.step()
scaler.update(found_inf)
return loss.item(), not found_inf
