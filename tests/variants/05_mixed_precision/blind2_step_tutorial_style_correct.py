# cell: mixed_precision_step
# region: 1
# scores: full
# Correct, in the PyTorch AMP tutorial's shape with the course's scaler: gradients set to None
# for the model and for everything the optimizer holds, forward and loss under
# torch.autocast(device_type=X.device.type, dtype=dtype), backward of the scaled loss outside
# it, one unscale_ over all of the optimizer's parameters, step only when no inf/NaN, one
# update with this step's flag; returns a (float, bool) tuple.
model.zero_grad(set_to_none=True)
optimizer.zero_grad(set_to_none=True)
with torch.autocast(device_type=X.device.type, dtype=dtype):
    output = model(X)
    loss = loss_fn(output, y)
scaler.scale(loss).backward()
found_inf = bool(scaler.unscale_([p for group in optimizer.param_groups for p in group["params"]]))
stepped = not found_inf
if stepped:
    optimizer.step()
scaler.update(found_inf)
return float(loss.detach()), stepped
