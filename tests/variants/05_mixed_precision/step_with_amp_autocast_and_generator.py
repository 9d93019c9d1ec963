# cell: mixed_precision_step
# scores: full
optimizer.zero_grad(set_to_none=True)
with torch.amp.autocast(X.device.type, dtype=dtype):
    out = model(X)
    loss = loss_fn(out, y)
scaled = scaler.scale(loss)
scaled.backward()
overflow = bool(scaler.unscale_(p for group in optimizer.param_groups for p in group["params"]))
if not overflow:
    optimizer.step()
scaler.update(overflow)
return float(loss), not overflow
