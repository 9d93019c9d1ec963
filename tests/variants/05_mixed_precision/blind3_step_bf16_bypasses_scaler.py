# cell: mixed_precision_step
# loses: test_mixed_precision_step
# Breaks "the scaler is updated once per call" and "a step whose gradients hold inf or NaN changes
# nothing" for dtype=torch.bfloat16: the learner reasons that BF16 has FP32's range, so it needs
# no loss scale, and runs a plain backward and step without the scaler. FP16 steps are right;
# for BF16 the scaler's good-step count never moves, and a BF16 step with inf/NaN gradients
# (a diverging loss) still updates the weights and the momentum.
params = [p for group in optimizer.param_groups for p in group["params"]]
optimizer.zero_grad(set_to_none=True)
model.zero_grad(set_to_none=True)
with torch.autocast(device_type=X.device.type, dtype=dtype):
    loss = loss_fn(model(X), y)
if dtype == torch.bfloat16:
    loss.backward()
    optimizer.step()
    return loss.item(), True
scaler.scale(loss).backward()
found_inf = bool(scaler.unscale_(params))
if not found_inf:
    optimizer.step()
scaler.update(found_inf)
return loss.item(), not found_inf
