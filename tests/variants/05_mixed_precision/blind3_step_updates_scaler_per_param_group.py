# cell: mixed_precision_step
# loses: test_mixed_precision_step
# Breaks "the scaler is updated once per call, with the overflow flag of this step": the learner
# unscales group by group and updates the scaler after each group with that group's flag. With
# one parameter group (the usual model.parameters() optimizer) it is exact; with two groups (say,
# no weight decay on biases) the good-step count advances twice per step, and an overflow in one
# group backs off once and is then followed by a "good" update for the other group.
optimizer.zero_grad(set_to_none=True)
model.zero_grad(set_to_none=True)
with torch.autocast(device_type=X.device.type, dtype=dtype):
    loss = loss_fn(model(X), y)
scaler.scale(loss).backward()
found_inf = False
for group in optimizer.param_groups:
    group_inf = bool(scaler.unscale_(group["params"]))
    scaler.update(group_inf)
    found_inf = found_inf or group_inf
if not found_inf:
    optimizer.step()
return loss.item(), not found_inf
