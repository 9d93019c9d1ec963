# cell: mixed_precision_step
# region: 1
# loses: test_mixed_precision_step
# A correct step that returns [loss, stepped], a list, instead of the promised
# tuple[float, bool]. Unpacking `loss, stepped = ...` works, so a test that only unpacks
# passes; `isinstance(result, tuple)`, hashing the result or comparing it with a tuple fails.
params = [p for group in optimizer.param_groups for p in group["params"]]
optimizer.zero_grad()
with torch.autocast(device_type=X.device.type, dtype=dtype):
    loss = loss_fn(model(X), y)
scaler.scale(loss).backward()
found_inf = bool(scaler.unscale_(params))
if not found_inf:
    optimizer.step()
scaler.update(found_inf)
return [loss.item(), not found_inf]
