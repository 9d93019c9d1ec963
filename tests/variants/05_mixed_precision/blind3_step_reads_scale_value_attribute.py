# cell: mixed_precision_step
# loses: test_mixed_precision_step
# Breaks "scaler is ... anything with scale, unscale_, update": the learner scales the loss and
# unscales the gradients with the attribute scale_value of their own DynamicLossScaler and the
# function unscale_grads_, bypassing scaler.scale and scaler.unscale_. With DynamicLossScaler
# itself the step is identical; a scaler that only has the three methods (a wrapper, a spy that
# counts calls, a subclass that scales differently) raises AttributeError or is ignored.
params = [p for group in optimizer.param_groups for p in group["params"]]
optimizer.zero_grad(set_to_none=True)
model.zero_grad(set_to_none=True)
with torch.autocast(device_type=X.device.type, dtype=dtype):
    loss = loss_fn(model(X), y)
(loss * scaler.scale_value).backward()
found_inf = unscale_grads_(params, scaler.scale_value)
if not found_inf:
    optimizer.step()
scaler.update(found_inf)
return loss.item(), not found_inf
