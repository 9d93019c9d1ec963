# cell: mixed_precision_step
# loses: test_mixed_precision_step
# Unscales the model's parameters, not every parameter the optimizer holds (a loss with
# parameters of its own keeps scaled gradients, and an overflow there goes unnoticed).
optimizer.zero_grad()
with torch.autocast(device_type=X.device.type, dtype=dtype):
    loss = loss_fn(model(X), y)
scaler.scale(loss).backward()
found_inf = scaler.unscale_(model.parameters())
if not found_inf:
    optimizer.step()
scaler.update(found_inf)
return loss.item(), not found_inf
