# cell: mixed_precision_step
# loses: test_mixed_precision_step
# Breaks "returning (loss as a Python float, ...)": the learner keeps only the scaled loss and
# returns it divided by the scale it was multiplied with (read before the update, so the scale
# is the right one). With a power-of-two scale and a finite product this is the loss exactly;
# with a scale that is not a power of two (init_scale=3300 in a local check) the FP32 product is rounded and the
# quotient can differ from the loss in the last bits, and when loss * scale overflows FP32 (a
# large loss at a high scale, exactly when the step is skipped) the loss returned is inf.
# (It also reads scaler.scale_value, as blind3_step_reads_scale_value_attribute does: a test with
# a duck-typed scaler catches it for that reason; the loss checks need DynamicLossScaler itself.)
params = [p for group in optimizer.param_groups for p in group["params"]]
optimizer.zero_grad(set_to_none=True)
model.zero_grad(set_to_none=True)
with torch.autocast(device_type=X.device.type, dtype=dtype):
    scaled_loss = scaler.scale(loss_fn(model(X), y))
scaled_loss.backward()
loss_value = scaled_loss.item() / scaler.scale_value
found_inf = bool(scaler.unscale_(params))
if not found_inf:
    optimizer.step()
scaler.update(found_inf)
return loss_value, not found_inf
