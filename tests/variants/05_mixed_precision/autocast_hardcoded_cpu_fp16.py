# cell: mixed_precision_step
# loses: test_mixed_precision_step
optimizer.zero_grad()
with torch.autocast("cpu", dtype=torch.float16):
    loss = loss_fn(model(X), y)
scaler.scale(loss).backward()
params = [p for group in optimizer.param_groups for p in group["params"]]
found_inf = scaler.unscale_(params)
if not found_inf:
    optimizer.step()
scaler.update(found_inf)
return loss.item(), not found_inf
