# cell: mixed_precision_step
# region: 1
# loses: test_mixed_precision_step
# Reports the loss by dividing the scaled loss by the scaler's scale, read after
# scaler.update(). On a step where the scale changed (a backoff after an overflow, a growth
# after growth_interval good steps) the reported loss is off by that factor (2x after a
# backoff with the defaults), and with a scale near FP32's top the scaled loss is inf.
# Breaks "returning (loss as a Python float, ...)": the loss of this step, not a rescaled one.
params = [p for group in optimizer.param_groups for p in group["params"]]
optimizer.zero_grad()
with torch.autocast(device_type=X.device.type, dtype=dtype):
    loss = loss_fn(model(X), y)
scaled = scaler.scale(loss)
scaled.backward()
found_inf = bool(scaler.unscale_(params))
if not found_inf:
    optimizer.step()
scaler.update(found_inf)
return scaled.item() / scaler.scale_value, not found_inf
